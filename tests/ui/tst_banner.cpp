// The banner on its own: each state shown in its colour, and ended only by what ends it.

#include <QApplication>
#include <QTest>

#include "panels/Banner.h"

using namespace fxview;

class TestBanner : public QObject {
    Q_OBJECT
private slots:
    void eachStateEndsOnlyByItsOwnEnd();
    void errorsAndFailuresTakeTheErrorColour();
};

void TestBanner::eachStateEndsOnlyByItsOwnEnd() {
    Banner banner;
    QCOMPARE(banner.state(), Banner::State::Hidden);
    QVERIFY(banner.shownText().isEmpty());
    banner.say("The run failed at relu: shapes differ", Banner::State::RunFailure);
    QCOMPARE(banner.shownText(), QString("The run failed at relu: shapes differ"));
    banner.end(Banner::State::ModuleFrame); // not its state: it stays
    QCOMPARE(banner.state(), Banner::State::RunFailure);
    banner.end(Banner::State::RunFailure); // the next snapshot without a failure
    QCOMPARE(banner.state(), Banner::State::Hidden);
    QVERIFY(banner.shownText().isEmpty());
    QVERIFY(banner.isHidden());

    banner.say("Inside layer1 (Sequential)", Banner::State::ModuleFrame);
    QVERIFY(!banner.isHidden());
    banner.say("Input 1x4, seed 0; the run starts again", Banner::State::Note); // replaced
    banner.end(Banner::State::ModuleFrame); // leaving the module does not end a note
    QCOMPARE(banner.shownText(), QString("Input 1x4, seed 0; the run starts again"));
    banner.say({}, Banner::State::Error); // nothing to say: hidden
    QCOMPARE(banner.state(), Banner::State::Hidden);
}

void TestBanner::errorsAndFailuresTakeTheErrorColour() {
    Banner banner;
    banner.setColors(QColor("#ddeeff"), QColor("#ffdddd"), QColor("#111111"));
    for (auto state : {Banner::State::Error, Banner::State::RunFailure}) {
        banner.say("wrong", state);
        QVERIFY2(banner.styleSheet().contains("#ffdddd"), qPrintable(banner.styleSheet()));
    }
    for (auto state : {Banner::State::Note, Banner::State::RunNote, Banner::State::ModuleFrame}) {
        banner.say("calm", state);
        QVERIFY2(banner.styleSheet().contains("#ddeeff"), qPrintable(banner.styleSheet()));
    }
    QVERIFY(banner.styleSheet().contains("#111111"));
}

QTEST_MAIN(TestBanner)
#include "tst_banner.moc"
