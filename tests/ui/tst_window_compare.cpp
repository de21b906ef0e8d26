// The window comparing two runs, offscreen, against a real engine: the Comparison dock filled and
// shown, the graph's boxes coloured by the metric, Go to First Divergence selecting the node, a
// new metric recolouring, Clear, another model dropping the comparison, and a comparison the
// engine cannot make said in the banner.

#include <QApplication>
#include <QDockWidget>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>

#include "WindowSupport.h"
#include "panels/ComparisonPanel.h"
#include "scene/GraphScene.h"
#include "scene/NodeItem.h"
#include "window/MainWindow.h"
#include "window/WindowIds.h"

using namespace fxview;

class TestWindowCompare : public QObject {
    Q_OBJECT
private slots:
    void init() {
        QSettings().clear();
        window_ = std::make_unique<MainWindow>();
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        QVERIFY(open(*window_, "tinynet_traced.pt"));
    }
    void cleanup() { window_.reset(); }

    void comparisonColoursTheGraph() {
        QVERIFY(window_->findChild<QAction*>(ids::kCompareRuns));
        press(*window_, QKeySequence(Qt::Key_F10)); // the stepped run: at x
        QVERIFY(waitFor(window_.get(), SIGNAL(runShown())));
        CompareRequest bf16;
        bf16.dtype = "bfloat16";
        window_->startComparison(bf16);
        QVERIFY(waitFor(window_.get(), SIGNAL(comparisonShown())));
        ComparisonPanel* panel = window_->comparisonPanel();
        QVERIFY(panel->hasReport());
        QCOMPARE(panel->table()->rowCount(), 5);
        QVERIFY(window_->findChild<QDockWidget*>(ids::kComparisonDock)->isVisible());
        for (const char* node : {"x", "fc1", "relu", "fc2"}) {
            QColor mark = window_->scene()->nodeItem(node)->mark();
            QVERIFY2(mark.isValid(), node);
            QCOMPARE(mark,
                     panel->colourOf(
                         panel->report().nodes[static_cast<std::size_t>(rowOf(panel, node))]));
        }
        QCOMPARE(window_->currentNode(), QString("x")); // the stepped run stayed
        // The table follows the graph's selection.
        window_->selectNode("relu");
        QCOMPARE(panel->table()->selectedItems().value(0)->text(), QString("relu"));
        QCOMPARE(window_->selectedNode(), QString("relu"));

        // Judged by SQNR under 50 dB: fc2 (49 dB) is the first to diverge.
        panel->setMetric(Metric::Sqnr);
        panel->setThreshold(50);
        QVERIFY(panel->goToFirstDivergence());
        QCOMPARE(window_->selectedNode(), QString("fc2"));
        QVERIFY(window_->scene()->nodeItem("fc2")->isSelected());

        for (QPushButton* button : panel->findChildren<QPushButton*>())
            if (button->text() == "Clear")
                button->click();
        QVERIFY(!panel->hasReport());
        QVERIFY(!window_->scene()->nodeItem("fc1")->mark().isValid());
    }

    void anotherModelDropsTheComparison() {
        CompareRequest input;
        input.hasSeedB = true;
        input.seedB = 1;
        window_->startComparison(input);
        QVERIFY(waitFor(window_.get(), SIGNAL(comparisonShown())));
        QVERIFY(window_->comparisonPanel()->hasReport());
        QVERIFY(open(*window_, "example:branchy"));
        QVERIFY(!window_->comparisonPanel()->hasReport());
        QVERIFY(!window_->scene()->nodeItem("x")->mark().isValid());
    }

    void whatCannotBeComparedIsSaid() {
        CompareRequest missing;
        missing.modelB = "/nonexistent/b.pt";
        window_->startComparison(missing);
        QVERIFY(waitFor(window_.get(), SIGNAL(comparisonShown())));
        QVERIFY2(window_->bannerText().startsWith("Model B: "), qPrintable(window_->bannerText()));
        QVERIFY(!window_->comparisonPanel()->hasReport());
    }

private:
    static int rowOf(ComparisonPanel* panel, const std::string& node) {
        const auto& nodes = panel->report().nodes;
        for (std::size_t i = 0; i < nodes.size(); ++i)
            if (nodes[i].node == node)
                return static_cast<int>(i);
        return -1;
    }
    std::unique_ptr<MainWindow> window_;
};

int main(int argc, char** argv) {
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    app.setOrganizationName("fxview-tests");
    TestWindowCompare test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_window_compare.moc"
