// The storage scan of a pickle (data.pkl, constants.pkl): what persistent ids it names.

#include <cstdint>
#include <string>

#include "StorageCheck.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fxview::storagesIn(std::string(reinterpret_cast<const char*>(data), size));
    return 0;
}
