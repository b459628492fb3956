// Package report writes what every evaluation produces: Markdown tables, CSV
// files and plots (SVG and PNG, drawn with gonum/plot), each written to a
// temporary file and renamed into place so a reader never sees half a
// report.
//
// A Table is a title, column names and rows of cells; numbers are formatted
// once, when the row is added, so the Markdown and the CSV agree. A Plot is
// a set of named series of (x, y) points drawn as lines, points or both, on
// linear or logarithmic axes.
//
//	t := report.NewTable("Quality by budget", "policy", "budget", "mean Q")
//	t.Add("deltaq", 100, 0.973)
//	err := report.WriteTables(filepath.Join(out, "report.md"), "# Sync", t)
//	err = t.WriteCSV(filepath.Join(out, "results.csv"))
//	p := report.Plot{Title: "Fig. 4.4", X: "B", Y: "Q", Series: series}
//	err = p.Write(filepath.Join(out, "quality")) // quality.svg and quality.png
package report
