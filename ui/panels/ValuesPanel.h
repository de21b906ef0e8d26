#pragma once
// The Values dock: the numbers of one node's value (or of a weight its module holds), as a
// debugger's data viewer shows an array. A Table tab shows a 2-D slice, cells coloured by value,
// with pickers for which dimensions are rows and columns and the index of every other one; a
// Picture tab draws the same value as a channel grid (a 4-D feature map), a heat map (2-D) or a
// line plot (1-D) on one colour scale with a legend. Copy puts the slice on the clipboard as
// text; Save writes the whole value as .pt (torch.save) or .npy.
//
// It never talks to the engine: it asks for a slice (sliceWanted) and is handed the answer
// (showSlice); the window passes both through the session.

#include <QWidget>
#include <memory>

#include "Graph.h"
#include "RunRecord.h"
#include "ValueSlice.h"

class QComboBox;
class QLabel;
class QSpinBox;
class QTabWidget;
class QTableView;
class QHBoxLayout;

namespace fxview {

class ValuePicture;
class ValueTableModel;

class ValuesPanel : public QWidget {
    Q_OBJECT
public:
    explicit ValuesPanel(QWidget* parent = nullptr);

    // The node to show, inside the module `frame` Step Into is in ("" for the model's graph),
    // with its record in this run (nullptr before it runs). The same node again keeps the
    // person's pickers and asks for its numbers anew (the run moved on).
    void showNode(const QString& frame, const Node& node, const NodeRecord* record);
    void clear();
    // The engine's answer to sliceWanted; an answer to an older request is ignored.
    void showSlice(std::shared_ptr<const ValueSlice> slice);
    // The request the pickers make now.
    ValueSliceRequest currentRequest() const;
    // What Copy puts on the clipboard: the slice shown, tab-separated, a plane at a time.
    QString sliceText() const;
    // Asks for the whole value written to `path` (.npy: NumPy's format; otherwise torch.save).
    void saveTo(const QString& path);

    QTableView* table() const { return table_; }
    ValuePicture* picture() const { return picture_; }
    QTabWidget* tabs() const { return tabs_; }
    QString noteText() const;

signals:
    void sliceWanted(const fxview::ValueSliceRequest& request);
    void saveWanted(const fxview::SaveValueRequest& request, const QString& path);

private:
    // defaults: rows and columns are the last two dimensions; otherwise the ones picked stay.
    void rebuildPickers(bool defaults);
    void requestSlice();
    void copySlice();
    void chooseFile();
    void sourceChosen();

    QString frame_;
    std::string node_;
    std::vector<std::string> weights_; // the module's held tensors: sources after the output
    std::vector<std::int64_t> shape_;  // of the value shown, for the pickers
    bool shapeKnown_ = false;
    ValueSliceRequest asked_; // the request whose answer is awaited, or shown
    std::shared_ptr<const ValueSlice> slice_;

    QLabel* title_;
    QComboBox* source_;
    QComboBox* rows_;
    QComboBox* columns_;
    QSpinBox* firstRow_;
    QSpinBox* firstColumn_;
    QWidget* indexBox_;
    QHBoxLayout* indexLayout_;
    std::vector<QSpinBox*> indexes_; // one per dimension; hidden for the shown ones
    QTabWidget* tabs_;
    QTableView* table_;
    ValueTableModel* model_;
    ValuePicture* picture_;
    QLabel* note_;
};

} // namespace fxview

Q_DECLARE_METATYPE(fxview::ValueSliceRequest)
Q_DECLARE_METATYPE(fxview::SaveValueRequest)
