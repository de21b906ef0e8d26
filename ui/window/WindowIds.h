#pragma once
// The names the window's docks and commands go by: object names a saved window state, tests and
// scripts find them with (findChild<QDockWidget*>(ids::kInspectorDock),
// findChild<QAction*>(ids::kStep)), independent of their titles and translations.

namespace fxview::ids {

// Docks (their object names are also the keys of the saved dock layout: never rename one).
inline constexpr char kNodesDock[] = "nodes";
inline constexpr char kInspectorDock[] = "inspector";
inline constexpr char kGraphTextDock[] = "graphText";
inline constexpr char kOverviewDock[] = "overview";
inline constexpr char kValuesDock[] = "values";
inline constexpr char kComparisonDock[] = "comparison";
inline constexpr char kCompileDock[] = "compile";
inline constexpr char kCostDock[] = "cost";

// Run menu.
inline constexpr char kStep[] = "run.step";
inline constexpr char kStepInto[] = "run.stepInto";
inline constexpr char kStepOut[] = "run.stepOut";
inline constexpr char kRunToCursor[] = "run.toCursor";
inline constexpr char kContinue[] = "run.continue";
inline constexpr char kReset[] = "run.reset";
inline constexpr char kPlay[] = "run.play";
inline constexpr char kDetach[] = "run.detach";
inline constexpr char kToggleBreakpoint[] = "run.toggleBreakpoint";
inline constexpr char kRemoveBreakpoints[] = "run.removeBreakpoints";
inline constexpr char kBreakOnNonFinite[] = "run.breakOnNonFinite";
inline constexpr char kCompareRuns[] = "run.compare";
inline constexpr char kProfile[] = "run.profile";

// File and View menus.
inline constexpr char kOpen[] = "file.open";
inline constexpr char kOpenRemote[] = "file.openRemote";
inline constexpr char kExport[] = "file.export";
inline constexpr char kExportVisible[] = "file.exportVisible";
inline constexpr char kLoadOpLibrary[] = "file.loadOpLibrary";
inline constexpr char kExecutedPath[] = "view.executedPath";
inline constexpr char kWeightsAsNodes[] = "view.weightsAsNodes";
inline constexpr char kExpandAll[] = "view.expandAll";
inline constexpr char kCopyImage[] = "edit.copyImage";

} // namespace fxview::ids
