#pragma once
// --report-open-time: the moment the graph is first painted, measured from the start of the
// process (as the kernel recorded it, so dynamic loading and static initialisation count too).

namespace fxview {

class MainWindow;

// Prints "open time: N ms (model shown after M ms)" once the graph has been painted, and quits.
// With `thenStep` it then steps once, as F10 does, and prints "first step: N ms (NODE)" when that
// step has run (a .pt2 reads its weights there; one drawn ahead of its engine steps once the
// engine has it). A model that fails to open or to step prints
// its sentence and quits with exit code 1.
void reportOpenTime(MainWindow& window, bool thenStep);

} // namespace fxview
