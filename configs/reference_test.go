package configs

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the configuration reference in README.md")

// TestReadmeReferenceIsUpToDate keeps the README's configuration table
// generated from default.yaml: a changed default or comment fails this
// test until `go test ./configs -update` regenerates the table.
func TestReadmeReferenceIsUpToDate(t *testing.T) {
	ref, err := Reference()
	if err != nil {
		t.Fatal(err)
	}
	const path = "../README.md"
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i, j := strings.Index(s, ReferenceBegin), strings.Index(s, ReferenceEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the reference markers %q … %q", ReferenceBegin, ReferenceEnd)
	}
	want := s[:i] + ReferenceBegin + "\n\n" + ref + "\n" + s[j:]
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if s != want {
		t.Fatal("README.md's configuration reference is stale: run go test ./configs -update")
	}
}

func TestReferenceListsEveryKeyWithItsComment(t *testing.T) {
	ref, err := Reference()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| `crawler.politeness.min_delay` | `1s` | Minimum time between the start of two requests to one host. |",
		"| `crawler.content_types` | `[text/html, application/xhtml+xml, application/rss+xml, application/atom+xml, application/xml, text/xml]` |",
	} {
		if !strings.Contains(ref, want) {
			t.Errorf("reference lacks %q", want)
		}
	}
}

// TestEverySettingIsExplained keeps every row of the reference explained:
// a setting has a comment of its own or stands in a run of lines under one
// (its row then points to it). A setting after a blank line with no comment
// fails here.
func TestEverySettingIsExplained(t *testing.T) {
	ref, err := Reference()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range strings.Split(ref, "\n") {
		if strings.HasPrefix(row, "| `") && strings.HasSuffix(row, "|  |") {
			t.Errorf("no comment explains %s: add one above it in default.yaml", row)
		}
	}
}
