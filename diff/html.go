package diff

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/deltaq/deltaq/internal/plural"
)

// View is how WriteHTML lays a difference out (§4.2).
type View int

const (
	// SideBySide shows the old copy (deletions struck out) beside the new
	// one (insertions marked).
	SideBySide View = iota
	// ChangesOnly shows the changed runs with a little common context.
	ChangesOnly
)

// WriteHTML writes the word difference and the links added and removed as
// an HTML fragment; every text is escaped.
func (r Result) WriteHTML(w io.Writer, v View) error {
	var b strings.Builder
	switch v {
	case SideBySide:
		b.WriteString(`<table class="diff side-by-side"><tr><th>before</th><th>after</th></tr><tr><td>`)
		writeOps(&b, r.Words, Delete)
		b.WriteString(`</td><td>`)
		writeOps(&b, r.Words, Insert)
		b.WriteString("</td></tr></table>\n")
	case ChangesOnly:
		b.WriteString(`<div class="diff changes-only">`)
		writeOps(&b, r.ChangesOnly().Words, "")
		b.WriteString("</div>\n")
	default:
		return fmt.Errorf("diff: view %d: must be SideBySide or ChangesOnly", v)
	}
	writeLinks(&b, "links added", "ins", r.Links.Added)
	writeLinks(&b, "links removed", "del", r.Links.Removed)
	if n := r.Links.Omitted(); n > 0 {
		b.WriteString(`<p class="links-omitted">` + html.EscapeString(linksOmitted(n)) + "</p>\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeOps writes the runs of one side; only "" writes both sides merged.
func writeOps(b *strings.Builder, ops []Op, only Kind) {
	for i, op := range ops {
		if (op.Kind == Insert || op.Kind == Delete) && only != "" && op.Kind != only {
			continue
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		t := html.EscapeString(op.Text)
		switch op.Kind {
		case Insert:
			b.WriteString("<ins>" + t + "</ins>")
		case Delete:
			b.WriteString("<del>" + t + "</del>")
		default:
			b.WriteString(t)
		}
	}
}

func writeLinks(b *strings.Builder, title, tag string, links []string) {
	if len(links) == 0 {
		return
	}
	fmt.Fprintf(b, "<h4>%s</h4><ul class=%q>", title, strings.ReplaceAll(title, " ", "-"))
	for _, l := range links {
		e := html.EscapeString(l)
		fmt.Fprintf(b, `<li><%s><a href="%s">%s</a></%s></li>`, tag, e, e, tag)
	}
	b.WriteString("</ul>\n")
}

// PlainText renders the changes-only view for a mail body: removed runs
// as "- …", added runs as "+ …", and the links added and removed.
func (r Result) PlainText() string {
	var b strings.Builder
	for _, op := range r.Words {
		switch op.Kind {
		case Insert:
			b.WriteString("+ " + op.Text + "\n")
		case Delete:
			b.WriteString("- " + op.Text + "\n")
		case Omitted:
			b.WriteString(op.Text + "\n")
		}
	}
	for _, l := range r.Links.Added {
		b.WriteString("+ link " + l + "\n")
	}
	for _, l := range r.Links.Removed {
		b.WriteString("- link " + l + "\n")
	}
	if n := r.Links.Omitted(); n > 0 {
		b.WriteString(linksOmitted(n) + "\n")
	}
	return b.String()
}

// linksOmitted says how many links Result.Capped left out.
func linksOmitted(n int) string {
	return Elided + " " + plural.Count(n, "more link") + " added or removed"
}
