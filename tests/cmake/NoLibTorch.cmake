# cmake -DPROGRAMS="A;B" -P NoLibTorch.cmake: fails when ldd finds LibTorch (libtorch*, libc10*)
# among the libraries a program loads, its libraries' libraries included; prints one line a
# program otherwise.
foreach(program ${PROGRAMS})
  execute_process(COMMAND ldd ${program} OUTPUT_VARIABLE libraries RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "ldd could not read ${program}")
  endif()
  string(REGEX MATCHALL "(libtorch|libc10)[^ \t\n]*" torch "${libraries}")
  if(torch)
    message(FATAL_ERROR "${program} loads LibTorch: ${torch}")
  endif()
  message("${program} needs no LibTorch: its libraries are ${libraries}")
endforeach()
