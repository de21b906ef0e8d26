#pragma once
// Turns a loaded TorchScript model into the fx-style graph that torch.fx.symbolic_trace would
// record for it (see ../shared/docs/design.md, "How TorchScript maps onto it").

#include "Importer.h"
