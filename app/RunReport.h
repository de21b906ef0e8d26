#pragma once
// --report-run: the window measured on a whole run, as a person's F5 makes one.

namespace fxview {

class MainWindow;

// Once the model's engine has it (not only its drawing), Continues to the end as F5 does and
// prints "run: N ms, STATUS" (the wall time from the Continue to the run shown, and the status
// line: "finished, outputs equal to ep.module()"), then quits: 0 when the run finished with
// outputs no check found wrong, 1 when it failed, stopped before the end, or its outputs differ
// from their reference; a model that does not open, or an engine that dies, prints its sentence
// and quits with 1.
void reportRun(MainWindow& window);

} // namespace fxview
