import Testing
@testable import SyncInspector

@Suite("Panel")
struct PanelTests {
    @Test func unfocusedPanelHasASingleLineBorderAndTitle() {
        var buffer = CellBuffer(width: 12, height: 4)
        let inner = Panel(title: "Zones", focused: false).render(into: &buffer, area: buffer.bounds)
        #expect(buffer.lines() == [
            "┌─ Zones ──┐",
            "│          │",
            "│          │",
            "└──────────┘",
        ])
        #expect(inner == Rect(x: 1, y: 1, width: 10, height: 2))
        #expect(buffer[x: 3, y: 0].style == Theme.monochrome.title)
    }

    @Test func focusedPanelHasADoubleBorderAndHighlightedTitle() {
        var buffer = CellBuffer(width: 12, height: 3)
        Panel(title: "Zones", focused: true).render(into: &buffer, area: buffer.bounds)
        #expect(buffer.lines() == [
            "╔═ Zones ══╗",
            "║          ║",
            "╚══════════╝",
        ])
        #expect(buffer[x: 3, y: 0].style == Theme.monochrome.focusedTitle)
        #expect(buffer[x: 0, y: 1].style == Theme.monochrome.focusedBorder)
    }

    @Test func longTitleIsTruncatedInsideTheBorder() {
        var buffer = CellBuffer(width: 8, height: 2)
        Panel(title: "Zones and records").render(into: &buffer, area: buffer.bounds)
        #expect(buffer.lines() == ["┌─ Z… ─┐", "└──────┘"])
    }

    @Test func panelDrawsOnlyInItsAreaAndClearsItsInside() {
        var buffer = CellBuffer(width: 10, height: 4)
        buffer.fill(buffer.bounds, character: "x")
        Panel(title: "").render(into: &buffer, area: Rect(x: 2, y: 1, width: 5, height: 3))
        #expect(buffer.lines() == [
            "xxxxxxxxxx",
            "xx┌───┐xxx",
            "xx│   │xxx",
            "xx└───┘xxx",
        ])
    }

    @Test func sideBySidePanelsShowWhichOneHasFocus() {
        var buffer = CellBuffer(width: 20, height: 3)
        let halves = buffer.bounds.splitColumns([.fill, .fill])
        Panel(title: "A", focused: true).render(into: &buffer, area: halves[0])
        Panel(title: "B", focused: false).render(into: &buffer, area: halves[1])
        #expect(buffer.lines() == [
            "╔═ A ════╗┌─ B ────┐",
            "║        ║│        │",
            "╚════════╝└────────┘",
        ])
    }
}
