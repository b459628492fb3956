package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/deltaq/deltaq/internal/atomicfile"
)

// Table is a titled grid of formatted cells.
type Table struct {
	Title   string
	Columns []string
	Rows    [][]string
	// Notes are printed under the table in Markdown, one paragraph each.
	Notes []string
}

// NewTable starts a table with the given column names.
func NewTable(title string, columns ...string) *Table {
	return &Table{Title: title, Columns: columns}
}

// Add appends a row. Cells are formatted with Cell; a row shorter than the
// columns is padded with empty cells.
func (t *Table) Add(cells ...any) {
	row := make([]string, len(t.Columns))
	for i, c := range cells {
		if i < len(row) {
			row[i] = Cell(c)
		}
	}
	t.Rows = append(t.Rows, row)
}

// Note appends a paragraph printed under the table.
func (t *Table) Note(format string, args ...any) {
	t.Notes = append(t.Notes, fmt.Sprintf(format, args...))
}

// Cell formats a value the same way everywhere: floats with up to four
// significant decimals (or scientific notation when tiny or huge), NaN as
// "n/a", everything else with %v.
func Cell(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return formatFloat(x)
	case float32:
		return formatFloat(float64(x))
	case int:
		return strconv.Itoa(x)
	case fmt.Stringer:
		return x.String()
	default:
		return fmt.Sprint(v)
	}
}

func formatFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case math.IsInf(x, 1):
		return "∞"
	case math.IsInf(x, -1):
		return "-∞"
	case x == 0:
		return "0"
	case math.Abs(x) < 1e-4 || math.Abs(x) >= 1e7:
		return strconv.FormatFloat(x, 'e', 3, 64)
	default:
		s := strconv.FormatFloat(x, 'f', decimals(x), 64)
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		return s
	}
}

// decimals picks enough decimals for four significant digits, at most six.
func decimals(x float64) int {
	d := 4 - int(math.Floor(math.Log10(math.Abs(x)))) - 1
	return max(0, min(6, d))
}

// Markdown renders the table as a GitHub-flavoured Markdown section.
func (t *Table) Markdown(w io.Writer) error {
	var b strings.Builder
	if t.Title != "" {
		fmt.Fprintf(&b, "### %s\n\n", t.Title)
	}
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	b.WriteString("|")
	for _, c := range t.Columns {
		b.WriteString(" " + esc(c) + " |")
	}
	b.WriteString("\n|")
	for range t.Columns {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("|")
		for _, c := range r {
			b.WriteString(" " + esc(c) + " |")
		}
		b.WriteString("\n")
	}
	for _, n := range t.Notes {
		b.WriteString("\n" + n + "\n")
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// CSV writes the header and rows as CSV.
func (t *Table) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Columns); err != nil {
		return err
	}
	return cw.WriteAll(t.Rows) // WriteAll flushes
}

// WriteCSV writes the table to path as CSV, atomically.
func (t *Table) WriteCSV(path string) error {
	return atomicfile.Write(path, t.CSV)
}

// WriteMarkdown writes a Markdown document to path, atomically: the header
// (already Markdown, e.g. a title and a paragraph on how the run was made)
// followed by every table.
func WriteMarkdown(path, header string, tables ...*Table) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		if header != "" {
			if _, err := io.WriteString(w, strings.TrimRight(header, "\n")+"\n\n"); err != nil {
				return err
			}
		}
		for _, t := range tables {
			if err := t.Markdown(w); err != nil {
				return err
			}
		}
		return nil
	})
}
