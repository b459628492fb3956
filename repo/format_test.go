package repo

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// formatRows returns FORMAT.md's table rows by prefix: key and value cells.
func formatRows(t *testing.T) map[string][2]string {
	t.Helper()
	b, err := os.ReadFile("FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][2]string{}
	row := regexp.MustCompile("^\\| `(.)` \\| `([^`]*)` \\| (.*) \\| [^|]* \\|$")
	for _, line := range strings.Split(string(b), "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			rows[m[1]] = [2]string{m[2], m[3]}
		}
	}
	return rows
}

// encodedFields returns, for each record type, the fields its encoder
// writes, in order: the selectors on the encoded value in
// `func (x *T) encode()` and `func (db *DB) encodeVersion(v *Version)`.
func encodedFields(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	for _, file := range []string{"records.go", "batch.go"} {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil {
				continue
			}
			var v *ast.Field
			switch fn.Name.Name {
			case "encode":
				v = fn.Recv.List[0]
			case "encodeVersion":
				v = fn.Type.Params.List[0]
			default:
				continue
			}
			typ := v.Type.(*ast.StarExpr).X.(*ast.Ident).Name
			name := v.Names[0].Name
			var fields []string
			// Only the arguments of the encoder's writes count (e.str(p.URL)),
			// not the capacity hint of make.
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if fun, ok := call.Fun.(*ast.SelectorExpr); !ok || fmt.Sprint(fun.X) != "e" {
					return true
				}
				for _, arg := range call.Args {
					ast.Inspect(arg, func(n ast.Node) bool {
						if sel, ok := n.(*ast.SelectorExpr); ok {
							if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && !slices.Contains(fields, sel.Sel.Name) {
								fields = append(fields, sel.Sel.Name)
							}
						}
						return true
					})
				}
				return false
			})
			out[typ] = fields
		}
	}
	return out
}

// documentedFields returns the field list after "`typ`: " in a value cell:
// names separated by commas, each possibly followed by a note, up to ";"
// or the end of the cell.
func documentedFields(cell, typ string) ([]string, bool) {
	_, rest, ok := strings.Cut(cell, "`"+typ+"`: ")
	if !ok {
		return nil, false
	}
	rest, _, _ = strings.Cut(rest, ";")
	var names []string
	for _, item := range strings.Split(rest, ",") {
		if f := strings.Fields(item); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names, true
}

func TestFormatMatchesTheEncoders(t *testing.T) {
	rows := formatRows(t)
	prefixOf := map[string]string{
		"Page": "p", "Version": "v", "FetchRecord": "f", "HostState": "h",
		"QueueEntry": "q", "Change": "c", "DeltaQ": "s", "DiscoveryYield": "s",
	}
	enc := encodedFields(t)
	if len(enc) != len(prefixOf) {
		t.Fatalf("encoders found for %v; the table below names %d record types", slices.Sorted(maps.Keys(enc)), len(prefixOf))
	}
	for typ, fields := range enc {
		p, ok := prefixOf[typ]
		if !ok {
			t.Errorf("record %s has an encoder but no FORMAT.md row here", typ)
			continue
		}
		doc, ok := documentedFields(rows[p][1], typ)
		if !ok {
			t.Errorf("FORMAT.md row %q does not list `%s`: fields", p, typ)
			continue
		}
		if !slices.Equal(doc, fields) {
			t.Errorf("FORMAT.md row %q lists %s as %v; the encoder writes %v", p, typ, doc, fields)
		}
	}
}

func TestFormatMatchesTheKeyPrefixes(t *testing.T) {
	rows := formatRows(t)
	b, err := os.ReadFile("keys.go")
	if err != nil {
		t.Fatal(err)
	}
	// prefixQueue    = 'q' // q hostkey 0x00 class due seq → QueueEntry
	decl := regexp.MustCompile(`prefix\w+\s+= '(.)' // (.+?)\s+→`)
	found := 0
	for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
		found++
		row, ok := rows[m[1]]
		if !ok {
			t.Errorf("prefix %q has no FORMAT.md row", m[1])
			continue
		}
		if row[0] != strings.Join(strings.Fields(m[2]), " ") {
			t.Errorf("FORMAT.md key of %q is %q; keys.go says %q", m[1], row[0], m[2])
		}
	}
	if found == 0 || found != len(rows) {
		t.Errorf("keys.go declares %d prefixes, FORMAT.md has %d rows", found, len(rows))
	}
}
