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
// With `steps` > 0 it first steps that many nodes one at a time, as F10 does, and prints
// "steps: N, median X ms (min, max)" (each from the command to the step shown), then Resets
// and Continues. Each phase also prints what crossed between the window and the engine:
// "wire: open: N bytes from the engine, M to it" (and "steps:", "run:").
void reportRun(MainWindow& window, int steps = 0);

} // namespace fxview
