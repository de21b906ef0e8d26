// The module hierarchy at 10,000 nodes (issue 14): the main window opening a deep language model
// collapsed, opening and closing one block, the expansion states' pan and zoom frames and the
// window's memory, and the Nodes dock filled with every node and told of a step. The real window
// with its engine process, offscreen; prints Markdown tables.
//
// Opening is also given as a ratio to `python3 -c "import torch"` timed in the same run (PYTHON
// names the interpreter; median of 3).
//
// Usage: bench_scopes MODEL [RUNS]   (a TorchScript archive or a .pt2 with a `layers` scope)

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QGraphicsView>
#include <QLineEdit>
#include <QProcess>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTimer>

#include <cstdio>
#include <functional>
#include <unistd.h>
#include <vector>

#include "Timing.h"
#include "panels/NodeListPanel.h"
#include "scene/GraphScene.h"
#include "window/MainWindow.h"

using namespace fxview;

namespace {

// What a person waits for: the change, then the frame the event loop paints after it.
double changeMs(const std::function<void()>& change) {
    return millisecondsOf([&] {
        change();
        QApplication::processEvents();
    });
}

struct Frames {
    double pan = 0, zoom = 0;
};

// Pan at reading size down the picture, then zoom out towards the whole and back.
Frames frames(MainWindow& window) {
    QGraphicsView* view = window.scene()->views().value(0);
    view->resetTransform();
    view->centerOn(window.scene()->sceneRect().center().x(), window.scene()->sceneRect().top());
    QApplication::processEvents();
    std::vector<double> pan, zoom;
    QScrollBar* bar = view->verticalScrollBar();
    for (int i = 0; i < 60; ++i)
        pan.push_back(changeMs([&] { bar->setValue(bar->value() + 40); }));
    for (int i = 0; i < 40; ++i)
        zoom.push_back(changeMs([&] { view->scale(i < 20 ? 0.8 : 1.25, i < 20 ? 0.8 : 1.25); }));
    return {median(pan), median(zoom)};
}

// The machine's speed, to compare the opening with: Python's own start with PyTorch.
double importTorchMs() {
    std::vector<double> times;
    for (int i = 0; i < 3; ++i)
        times.push_back(millisecondsOf([] {
            QProcess::execute(qEnvironmentVariable("PYTHON", "/usr/bin/python3"),
                              {"-c", "import torch"});
        }));
    return median(times);
}

// A change of open scopes, to its picture: a big one is laid out in the background.
double scopesChangeMs(MainWindow& window, const std::function<void()>& change) {
    return changeMs([&] {
        QEventLoop shown;
        QObject::connect(&window, &MainWindow::scopesShown, &shown, &QEventLoop::quit);
        change();
        if (window.layingOut())
            shown.exec();
    });
}

struct NodeListTimes {
    double fill = 0, step = 0, filter = 0;
};

// The Nodes dock alone, shown, on the open model: filled with its rows under their scopes, told
// that every node has run (a step's update, the worst case), then filtered by a name.
NodeListTimes nodeListTimes(const MainWindow& window) {
    NodeListPanel panel;
    panel.resize(420, 860);
    panel.show();
    QApplication::processEvents();
    const LoadedModel& model = window.model();
    NodeListTimes times;
    times.fill = changeMs([&] { panel.fill(model.graph, &model.scopes, {"layers"}); });
    NodeRecord done;
    done.state = NodeState::Done;
    done.value.type = "Tensor";
    done.value.shape = {1, 64, 512};
    done.value.dtype = "float32";
    const QString current = QString::fromStdString(model.graph.nodes.back().name);
    times.step =
        changeMs([&] { panel.showRecords([&](const std::string&) { return &done; }, current); });
    times.filter = changeMs([&] { panel.filter()->setText("softmax"); });
    return times;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_scopes MODEL.pt [RUNS]\n");
        return 2;
    }
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true); // no remembered state: the default view
    QApplication app(argc, argv);
    const QString model = argv[1];
    const int runs = argc > 2 ? std::atoi(argv[2]) : 5;

    std::vector<double> open, expandTop, expandBlock, collapseBlock, reexpandBlock, toDepth;
    double mbCollapsed = 0, mbOpen = 0, mbAll = 0, mbBefore = residentMb();
    int boxes = 0, drawnTop = 0, nodes = 0;
    Frames collapsedFrames, blockFrames, allFrames;
    double expandAll = 0;
    std::vector<double> listFill, listStep, listFilter;
    for (int run = 0; run < runs; ++run) {
        QSettings().clear();
        MainWindow window;
        window.resize(1280, 860);
        window.show();
        QApplication::processEvents();
        QEventLoop loop;
        QObject::connect(&window, &MainWindow::modelShown, &loop, &QEventLoop::quit);
        QTimer::singleShot(120000, &loop, &QEventLoop::quit);
        QElapsedTimer timer;
        timer.start();
        window.openModel(model);
        loop.exec();
        if (window.modelSource().isEmpty()) {
            std::fprintf(stderr, "%s did not open: %s\n", argv[1], qPrintable(window.bannerText()));
            return 1;
        }
        QApplication::processEvents(); // the first frame of the collapsed picture
        open.push_back(timer.nsecsElapsed() / 1e6);
        nodes = window.model().graph.nodeCount();
        boxes = window.scene()->nodeCount();
        if (run ==
            0) // memory from the first window only: the allocator keeps what later ones freed
            mbCollapsed = residentMb();
        const NodeListTimes list = nodeListTimes(window);
        listFill.push_back(list.fill);
        listStep.push_back(list.step);
        listFilter.push_back(list.filter);
        // The stack of blocks is one box at first: open it, then one block in its middle.
        const ScopeTree& scopes = window.model().scopes;
        expandTop.push_back(changeMs([&] { window.setScopeOpen("layers", true); }));
        drawnTop = window.scene()->nodeCount();
        const int middle = static_cast<int>(scopes.find("layers")->children.size() / 2);
        const QString block = QString("layers.%1").arg(middle);
        expandBlock.push_back(changeMs([&] { window.setScopeOpen(block, true); }));
        if (run == 0) {
            mbOpen = residentMb();
            blockFrames = frames(window);
        }
        collapseBlock.push_back(changeMs([&] { window.setScopeOpen(block, false); }));
        reexpandBlock.push_back(changeMs([&] { window.setScopeOpen(block, true); }));
        toDepth.push_back(changeMs([&] { window.collapseToDepth(0); }));
        if (run == 0) {
            collapsedFrames = frames(window);
            expandAll = scopesChangeMs(window, [&] { window.expandAll(); });
            mbAll = residentMb();
            allFrames = frames(window);
        }
    }
    const double importTorch = importTorchMs();
    std::printf(
        "%d nodes; collapsed view: %d boxes and nodes; `layers` open: %d. Median of %d.\n\n", nodes,
        boxes, drawnTop, runs);
    std::printf("python3 -c \"import torch\": %.0f ms; open / import torch: %.2fx\n\n", importTorch,
                median(open) / importTorch);
    std::printf("| step | time |\n|---|---:|\n");
    std::printf(
        "| open to the collapsed picture (engine process, trace, layout, paint) | %.0f ms |\n",
        median(open));
    std::printf("| open `layers` (one box -> its blocks as boxes) | %.0f ms |\n",
                median(expandTop));
    std::printf("| open one block (`layers.N`, middle) | %.0f ms |\n", median(expandBlock));
    std::printf("| close it | %.0f ms |\n", median(collapseBlock));
    std::printf("| open it again | %.0f ms |\n", median(reexpandBlock));
    std::printf("| collapse to depth 0 | %.0f ms |\n", median(toDepth));
    std::printf(
        "| expand all (first time, every piece laid out; in the background) | %.0f ms |\n\n",
        expandAll);
    std::printf("| the Nodes dock (shown alone) | time |\n|---|---:|\n");
    std::printf("| filled with every node, `layers` open | %.0f ms |\n", median(listFill));
    std::printf("| told of a step (every node's record) | %.0f ms |\n", median(listStep));
    std::printf("| filtered (`softmax`) | %.0f ms |\n\n", median(listFilter));
    std::printf("| expansion state | pan step | zoom step | window's memory (RSS) |\n"
                "|---|---:|---:|---:|\n");
    std::printf("| collapsed (depth 0) | %.1f ms | %.1f ms | %.0f MB |\n", collapsedFrames.pan,
                collapsedFrames.zoom, mbCollapsed);
    std::printf("| `layers` and one block open | %.1f ms | %.1f ms | %.0f MB |\n", blockFrames.pan,
                blockFrames.zoom, mbOpen);
    std::printf("| everything open | %.1f ms | %.1f ms | %.0f MB |\n", allFrames.pan,
                allFrames.zoom, mbAll);
    std::printf("\n(the window before opening anything: %.0f MB)\n", mbBefore);
    return 0;
}
