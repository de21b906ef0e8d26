#include "export/SvgPainter.h"

#include "scene/SceneStyle.h"

#include <QBuffer>
#include <QFile>
#include <QImage>
#include <QPaintEngine>
#include <QPainterPath>
#include <QPixmap>
#include <QtMath>
#include <charconv>
#include <climits>
#include <cmath>
#include <string>

namespace fxview {

namespace {

// Two decimals, trailing zeros dropped: the precision dot writes, at a fraction of printf's cost
// (SVG export of a big graph writes hundreds of thousands of numbers).
void appendNumber(std::string& out, double value) {
    long long hundredths = std::isfinite(value) ? std::llround(value * 100) : 0;
    if (hundredths < 0) {
        out += '-';
        hundredths = -hundredths;
    }
    char digits[24];
    auto end = std::to_chars(digits, digits + sizeof digits, hundredths / 100).ptr;
    out.append(digits, end);
    int fraction = static_cast<int>(hundredths % 100);
    if (fraction != 0) {
        out += '.';
        out += static_cast<char>('0' + fraction / 10);
        if (fraction % 10 != 0)
            out += static_cast<char>('0' + fraction % 10);
    }
}

void appendEscaped(std::string& out, const QString& text) {
    for (char c : text.toStdString()) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
}

void appendColor(std::string& out, const char* attribute, const char* opacityAttribute,
                 const QColor& color, double opacity) {
    out += ' ';
    out += attribute;
    out += "=\"";
    out += color.name(QColor::HexRgb).toStdString();
    out += '"';
    double alpha = color.alphaF() * opacity;
    if (alpha < 1) {
        out += ' ';
        out += opacityAttribute;
        out += "=\"";
        appendNumber(out, alpha);
        out += '"';
    }
}

} // namespace

class SvgPaintEngine : public QPaintEngine {
public:
    SvgPaintEngine(const QString& path, const QSizeF& size, const QString& title)
        : QPaintEngine(PaintEngineFeatures(AllFeatures) & ~PerspectiveTransform), path_(path),
          size_(size), title_(title) {}

    bool ok() const { return ok_; }
    Type type() const override { return User; }

    bool begin(QPaintDevice*) override {
        out_.clear();
        out_.reserve(1 << 20);
        out_ += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                "xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\"";
        attribute("width", size_.width());
        attribute("height", size_.height());
        out_ += " viewBox=\"0 0 ";
        appendNumber(out_, size_.width());
        out_ += ' ';
        appendNumber(out_, size_.height());
        out_ += "\" xml:space=\"preserve\">\n<title>";
        appendEscaped(out_, title_);
        // Qt's default pen ends and joins, written once instead of on every stroke.
        out_ += "</title>\n<g stroke-linecap=\"square\" stroke-linejoin=\"bevel\">\n";
        return true;
    }

    bool end() override {
        out_ += "</g>\n</svg>\n";
        QFile file(path_);
        ok_ = file.open(QIODevice::WriteOnly) &&
              file.write(out_.data(), static_cast<qint64>(out_.size())) ==
                  static_cast<qint64>(out_.size());
        out_.clear();
        out_.shrink_to_fit();
        return ok_;
    }

    void updateState(const QPaintEngineState& state) override {
        QPaintEngine::DirtyFlags dirty = state.state();
        if (dirty & DirtyPen)
            pen_ = state.pen();
        if (dirty & DirtyBrush)
            brush_ = state.brush();
        if (dirty & DirtyTransform)
            transform_ = state.transform();
        if (dirty & DirtyOpacity)
            opacity_ = state.opacity();
    }

    void drawPath(const QPainterPath& path) override {
        Element e(*this, "path");
        out_ += " d=\"";
        for (int i = 0; i < path.elementCount(); ++i) {
            const QPainterPath::Element& el = path.elementAt(i);
            switch (el.type) {
            case QPainterPath::MoveToElement:
                out_ += 'M';
                break;
            case QPainterPath::LineToElement:
                out_ += 'L';
                break;
            case QPainterPath::CurveToElement:
                out_ += 'C';
                break;
            case QPainterPath::CurveToDataElement:
                out_ += ' ';
                break;
            }
            point(QPointF(el.x, el.y));
        }
        out_ += '"';
        e.style(true, path.fillRule() == Qt::OddEvenFill);
    }

    void drawPolygon(const QPointF* points, int count, PolygonDrawMode mode) override {
        bool polyline = mode == PolylineMode;
        Element e(*this, polyline ? "polyline" : "polygon");
        out_ += " points=\"";
        for (int i = 0; i < count; ++i) {
            if (i > 0)
                out_ += ' ';
            point(points[i]);
        }
        out_ += '"';
        e.style(!polyline, mode == OddEvenMode);
    }

    void drawRects(const QRectF* rects, int count) override {
        for (int i = 0; i < count; ++i) {
            QPolygonF corners(rects[i]);
            corners.removeLast(); // QPolygonF(QRectF) closes itself; SVG polygons are closed
            drawPolygon(corners.constData(), static_cast<int>(corners.size()), ConvexMode);
        }
    }

    void drawLines(const QLineF* lines, int count) override {
        for (int i = 0; i < count; ++i) {
            QPointF ends[2] = {lines[i].p1(), lines[i].p2()};
            drawPolygon(ends, 2, PolylineMode);
        }
    }

    void drawEllipse(const QRectF& rect) override {
        QPainterPath path;
        path.addEllipse(rect);
        drawPath(path);
    }

    void drawTextItem(const QPointF& position, const QTextItem& item) override {
        if (pen_.style() == Qt::NoPen)
            return;
        QFont font = item.font();
        double pixels =
            font.pixelSize() > 0 ? font.pixelSize() : font.pointSizeF() * screenDpi_ / 72.0;
        Element e(*this, "text");
        attribute("x", map(position).x());
        attribute("y", map(position).y());
        out_ += " font-family=\"";
        appendEscaped(out_, font.family());
        out_ += "\" font-size=\"";
        appendNumber(out_, pixels * e.scale);
        out_ += '"';
        if (font.weight() >= QFont::DemiBold)
            out_ += " font-weight=\"bold\"";
        if (font.italic())
            out_ += " font-style=\"italic\"";
        appendColor(out_, "fill", "fill-opacity", pen_.color(), opacity_);
        out_ += '>';
        appendEscaped(out_, item.text());
        e.close("text");
    }

    void drawPixmap(const QRectF& target, const QPixmap& pixmap, const QRectF& source) override {
        QByteArray png;
        QBuffer buffer(&png);
        buffer.open(QIODevice::WriteOnly);
        pixmap.copy(source.toAlignedRect()).save(&buffer, "PNG");
        Element e(*this, "image");
        QRectF box = e.simple ? transform_.mapRect(target) : target;
        attribute("x", box.x());
        attribute("y", box.y());
        attribute("width", box.width());
        attribute("height", box.height());
        out_ += " preserveAspectRatio=\"none\" xlink:href=\"data:image/png;base64,";
        out_ += png.toBase64().toStdString();
        out_ += '"';
        e.close(nullptr);
    }

    int dpi() const { return screenDpi_; }

private:
    // One SVG element. A translation or scale is applied to the coordinates (what the scene
    // uses: every item is translated); anything else wraps the element in a transformed <g>.
    struct Element {
        SvgPaintEngine& engine;
        bool simple;
        double scale;

        Element(SvgPaintEngine& owner, const char* tag)
            : engine(owner), simple(owner.transform_.type() <= QTransform::TxScale),
              scale(simple ? std::sqrt(std::abs(owner.transform_.determinant())) : 1.0) {
            std::string& out = engine.out_;
            if (!simple) {
                const QTransform& t = engine.transform_;
                out += "<g transform=\"matrix(";
                for (double v : {t.m11(), t.m12(), t.m21(), t.m22(), t.dx(), t.dy()}) {
                    appendNumber(out, v);
                    out += ' ';
                }
                out.back() = ')';
                out += "\">";
            }
            out += '<';
            out += tag;
        }

        // fill and stroke attributes from the painter's brush and pen.
        void style(bool fillable, bool evenOdd) {
            std::string& out = engine.out_;
            const QBrush& brush = engine.brush_;
            if (!fillable || brush.style() == Qt::NoBrush) {
                out += " fill=\"none\"";
            } else {
                const QGradient* gradient = brush.gradient();
                QColor color = gradient && !gradient->stops().isEmpty()
                                   ? gradient->stops().first().second
                                   : brush.color();
                appendColor(out, "fill", "fill-opacity", color, engine.opacity_);
                if (evenOdd)
                    out += " fill-rule=\"evenodd\"";
            }
            const QPen& pen = engine.pen_;
            if (pen.style() != Qt::NoPen && pen.brush().style() != Qt::NoBrush)
                stroke(pen);
            close(nullptr);
        }

        void stroke(const QPen& pen) {
            std::string& out = engine.out_;
            double width = pen.widthF() > 0 ? pen.widthF() : 1.0;
            double drawn = pen.isCosmetic() ? width : width * scale;
            appendColor(out, "stroke", "stroke-opacity", pen.color(), engine.opacity_);
            out += " stroke-width=\"";
            appendNumber(out, drawn);
            out += '"';
            if (pen.isCosmetic() && !simple)
                out += " vector-effect=\"non-scaling-stroke\"";
            if (pen.style() != Qt::SolidLine) {
                out += " stroke-dasharray=\"";
                const QList<qreal> pattern = pen.dashPattern();
                for (qsizetype i = 0; i < pattern.size(); ++i) {
                    if (i > 0)
                        out += ' ';
                    appendNumber(out, pattern[i] * drawn);
                }
                out += '"';
            }
            if (pen.capStyle() != Qt::SquareCap)
                out += pen.capStyle() == Qt::RoundCap ? " stroke-linecap=\"round\""
                                                      : " stroke-linecap=\"butt\"";
            if (pen.joinStyle() != Qt::BevelJoin)
                out += pen.joinStyle() == Qt::RoundJoin ? " stroke-linejoin=\"round\""
                                                        : " stroke-linejoin=\"miter\"";
        }

        // Ends the element: self-closing, or with `</tag>` after content.
        void close(const char* tag) {
            std::string& out = engine.out_;
            if (tag) {
                out += "</";
                out += tag;
                out += '>';
            } else {
                out += "/>";
            }
            if (!simple)
                out += "</g>";
            out += '\n';
        }
    };

    // ` name="value"`
    void attribute(const char* name, double value) {
        out_ += ' ';
        out_ += name;
        out_ += "=\"";
        appendNumber(out_, value);
        out_ += '"';
    }

    QPointF map(const QPointF& p) const {
        return transform_.type() <= QTransform::TxScale ? transform_.map(p) : p;
    }

    void point(const QPointF& p) {
        QPointF m = map(p);
        appendNumber(out_, m.x());
        out_ += ',';
        appendNumber(out_, m.y());
    }

    QString path_;
    QSizeF size_;
    QString title_;
    std::string out_;
    bool ok_ = false;
    QPen pen_;
    QBrush brush_;
    QTransform transform_;
    double opacity_ = 1;
    int screenDpi_ = measuringDpi();
};

SvgPainter::SvgPainter(const QString& path, const QSizeF& size, const QString& title)
    : size_(size), engine_(std::make_unique<SvgPaintEngine>(path, size, title)) {}

SvgPainter::~SvgPainter() = default;

QPaintEngine* SvgPainter::paintEngine() const {
    return engine_.get();
}

bool SvgPainter::ok() const {
    return engine_->ok();
}

int SvgPainter::metric(PaintDeviceMetric metric) const {
    const int dpi = engine_->dpi();
    switch (metric) {
    case PdmWidth:
        return qCeil(size_.width());
    case PdmHeight:
        return qCeil(size_.height());
    case PdmWidthMM:
        return qRound(size_.width() * 25.4 / dpi);
    case PdmHeightMM:
        return qRound(size_.height() * 25.4 / dpi);
    case PdmNumColors:
        return INT_MAX;
    case PdmDepth:
        return 32;
    case PdmDpiX:
    case PdmDpiY:
    case PdmPhysicalDpiX:
    case PdmPhysicalDpiY:
        return dpi;
    case PdmDevicePixelRatio:
        return 1;
    case PdmDevicePixelRatioScaled:
        return static_cast<int>(devicePixelRatioFScale());
#if QT_VERSION >= QT_VERSION_CHECK(6, 8, 0)
    // Qt 6.8 asks for the fractional ratio in two encoded halves.
    case PdmDevicePixelRatioF_EncodedA:
    case PdmDevicePixelRatioF_EncodedB:
        return encodeMetricF(metric, 1.0);
#endif
    }
    return 0;
}

} // namespace fxview
