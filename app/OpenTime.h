#pragma once
// --report-open-time: the moment the graph is first painted, measured from the start of the
// process (as the kernel recorded it, so dynamic loading and static initialisation count too).

namespace fxview {

class MainWindow;

// Prints "open time: N ms (model shown after M ms)" once the graph has been painted, and quits.
// A model that fails to open prints its sentence and quits with exit code 1.
void reportOpenTime(MainWindow& window);

} // namespace fxview
