/// Where a table gets its rows. The table asks for `rowCount` and then only
/// for the rows it shows, so a provider over 100,000 rows costs the same to
/// draw as one over 100.
public protocol TableRowProvider {
    var rowCount: Int { get }
    func row(at index: Int) -> TableRow
}
