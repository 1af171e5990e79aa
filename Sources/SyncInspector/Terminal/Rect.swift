/// A rectangle of cells: `x`, `y` is the top-left corner; `width` and
/// `height` are never negative.
public struct Rect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    public init(size: Size) {
        self.init(x: 0, y: 0, width: size.width, height: size.height)
    }

    /// One past the right-most column.
    public var maxX: Int { x + width }
    /// One past the bottom row.
    public var maxY: Int { y + height }
    public var size: Size { Size(width: width, height: height) }
    public var isEmpty: Bool { width == 0 || height == 0 }

    public func contains(x px: Int, y py: Int) -> Bool {
        px >= x && px < maxX && py >= y && py < maxY
    }

    /// The overlap of two rectangles (empty, positioned at the clamped corner, when they do not overlap).
    public func intersection(_ other: Rect) -> Rect {
        let left = max(x, other.x)
        let top = max(y, other.y)
        let right = min(maxX, other.maxX)
        let bottom = min(maxY, other.maxY)
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The rectangle shrunk by `amount` cells on every side.
    public func inset(by amount: Int) -> Rect {
        inset(top: amount, left: amount, bottom: amount, right: amount)
    }

    public func inset(top: Int = 0, left: Int = 0, bottom: Int = 0, right: Int = 0) -> Rect {
        let newWidth = max(0, width - left - right)
        let newHeight = max(0, height - top - bottom)
        return Rect(x: x + min(left, width), y: y + min(top, height), width: newWidth, height: newHeight)
    }

    /// A rectangle of (at most) the given size centred in this one.
    public func centered(width w: Int, height h: Int) -> Rect {
        let cw = min(max(0, w), width)
        let ch = min(max(0, h), height)
        return Rect(x: x + (width - cw) / 2, y: y + (height - ch) / 2, width: cw, height: ch)
    }

    /// The single row `index` (relative to the top) of this rectangle.
    public func row(_ index: Int) -> Rect {
        Rect(x: x, y: y + index, width: width, height: index >= 0 && index < height ? 1 : 0)
    }

    /// Splits into side-by-side columns, left to right.
    public func splitColumns(_ constraints: [Constraint], spacing: Int = 0) -> [Rect] {
        Constraint.resolve(constraints, total: width, spacing: spacing).map { segment in
            Rect(x: x + segment.offset, y: y, width: segment.length, height: height)
        }
    }

    /// Splits into stacked rows, top to bottom.
    public func splitRows(_ constraints: [Constraint], spacing: Int = 0) -> [Rect] {
        Constraint.resolve(constraints, total: height, spacing: spacing).map { segment in
            Rect(x: x, y: y + segment.offset, width: width, height: segment.length)
        }
    }

    public var description: String { "(\(x),\(y) \(width)×\(height))" }
}
