// How long the graph view and the overview take to paint one frame, for "smooth at thousands of
// nodes": the fixture models and the generated chains. Prints a Markdown table for
// docs/measurements.md, medians over every frame of a scripted pan and zoom.
//
// Usage: bench_view [MODEL.pt]...

#include <QApplication>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QMouseEvent>
#include <QScrollBar>
#include <QWidget>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "ChainGraph.h"
#include "Model.h"
#include "Timing.h"
#include "Tracer.h"
#include "scene/GraphScene.h"
#include "scene/GraphView.h"
#include "scene/OverviewView.h"

using namespace fxview;

namespace {

// One frame: what the event loop paints after `change`, as it would after a wheel or drag event.
double frameMs(const std::function<void()>& change) {
    return millisecondsOf([&] {
        change();
        QApplication::processEvents();
    });
}

void measure(const QString& name, const Graph& graph) {
    GraphScene scene;
    if (QString error = scene.setGraph(graph); !error.isEmpty()) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(name), qPrintable(error));
        return;
    }
    // The main window's sizes: the view beside a 340-pixel-wide overview dock.
    QWidget window;
    auto* layout = new QHBoxLayout(&window);
    auto* view = new GraphView;
    view->setScene(&scene);
    auto* overview = new OverviewView(view);
    overview->setFixedSize(340, 220);
    layout->addWidget(view);
    layout->addWidget(overview);
    window.resize(1280, 760);
    window.show();
    QApplication::processEvents();

    // Panning at reading size: 60 steps of 40 pixels down the graph; the overview moves its
    // rectangle in the same frame.
    view->resetTransform();
    view->centerOn(scene.sceneRect().center().x(), scene.sceneRect().top());
    QApplication::processEvents();
    QScrollBar* bar = view->verticalScrollBar();
    std::vector<double> pan, hover, zoom, whole, overviewFrames;
    for (int i = 0; i < 60; ++i)
        pan.push_back(frameMs([&] { bar->setValue(bar->value() + 40); }));
    // The pointer moving across the view: the scene finds the items under it (hover, gutter).
    for (int i = 0; i < 60; ++i)
        hover.push_back(frameMs([&] {
            QPointF at(view->viewport()->width() / 2 - 150 + 5 * i, view->viewport()->height() / 2);
            QMouseEvent move(QEvent::MouseMove, at, view->viewport()->mapToGlobal(at), Qt::NoButton,
                             Qt::NoButton, Qt::NoModifier);
            QApplication::sendEvent(view->viewport(), &move);
        }));
    // Zooming out from reading size towards the whole graph and back, 20 wheel steps each way.
    for (int i = 0; i < 40; ++i)
        zoom.push_back(frameMs([&] { view->zoomBy(i < 20 ? 1 / 1.25 : 1.25); }));
    // The whole graph fitted in the view, repainted; and the overview's picture drawn again, as
    // after a step changes a node's colour.
    view->fitInView(scene.sceneRect(), Qt::KeepAspectRatio);
    for (int i = 0; i < 10; ++i) {
        whole.push_back(frameMs([&] { view->viewport()->update(); }));
        overviewFrames.push_back(frameMs([&] {
            overview->refit(); // drops the picture
            overview->viewport()->update();
        }));
    }
    std::printf("| %s | %d | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.1f ms |\n", qPrintable(name),
                graph.nodeCount(), median(pan), median(hover), median(zoom), median(whole),
                median(overviewFrames));
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    std::printf(
        "| graph | nodes | pan step at 100%% | pointer move | zoom step | whole graph repainted "
        "| overview redrawn |\n"
        "|---|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 1; i < argc; ++i) {
        LoadResult loaded = loadModel(argv[i]);
        if (!loaded.ok()) {
            std::fprintf(stderr, "%s\n", loaded.error.c_str());
            return 1;
        }
        QString name = QString(argv[i]).section('/', -1).section('.', 0, 0);
        measure(name, importGraph(*loaded.model).graph);
    }
    for (int count : {1000, 3000})
        measure(QString("chain%1").arg(count), chainWithSkips(count));
    return 0;
}
