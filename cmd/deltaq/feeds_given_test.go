package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFeedsAddRefusesWhatItWouldCutOrTakeForAnother: a URL with a NUL was
// subscribed as the URL without it, and a name or folders longer than a
// feed keeps were cut; each is refused, naming the flag, the value (cut)
// and the limit, and nothing is subscribed.
func TestFeedsAddRefusesWhatItWouldCutOrTakeForAnother(t *testing.T) {
	long := strings.Repeat("n", 5000)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"a URL with a NUL", []string{"http://e.test/feed\x00"}, `URL "http://e.test/feed\x00": must be an absolute http or https URL with no ASCII control character`},
		{"a name of 5,000 bytes", []string{"http://e.test/feed", "--name", long}, `--name = "` + strings.Repeat("n", 200) + `"…: must be at most 1024 bytes of UTF-8 without control characters`},
		{"a name with a NUL", []string{"http://e.test/feed", "--name", "a\x00"}, `--name = "a\x00": must be at most 1024 bytes`},
		{"nine folders", []string{"http://e.test/feed", "--folder", "a/b/c/d/e/f/g/h/i"}, `--folder: 9 folders: must be at most 8 folders (levels)`},
		{"an empty folder", []string{"http://e.test/feed", "--folder", "Tech//Go"}, `--folder: level 2 = "": must be a folder name, not empty, of at most 1024 bytes`},
		{"a folder of 5,000 bytes", []string{"http://e.test/feed", "--folder", "Tech/" + long}, `--folder: level 2 = "` + strings.Repeat("n", 200) + `"…: must be`},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := t.TempDir()
			_, _, err := run(t, append(append([]string{"feeds", "add"}, c.args...), "--data", data)...)
			if err == nil || !strings.Contains(err.Error(), c.want) || len(err.Error()) > 600 {
				t.Fatalf("feeds add: %v\nwant %q, under 600 bytes", err, c.want)
			}
			if out, _, err := run(t, "feeds", "list", "--data", data); err != nil || strings.Count(out, "\n") != 1 {
				t.Errorf("feeds list after the refused add: %v\n%s, want no feed", err, out)
			}
		})
	}
	data := t.TempDir()
	if out, _, err := run(t, "feeds", "add", "http://e.test/feed", "--folder", "/", "--name", "E", "--data", data); err != nil || !strings.Contains(out, `"E" in "/"`) {
		t.Errorf("feeds add --folder /: %v\n%s, want it in no folder", err, out)
	}
}

// TestFeedsImportSkipsAURLWithAControlCharacter: an outline's URL with a
// tab inside was read as the URL without it, so the outline with that URL
// itself was counted a repeat and never subscribed.
func TestFeedsImportSkipsAURLWithAControlCharacter(t *testing.T) {
	list := filepath.Join(t.TempDir(), "list.opml")
	opml := `<?xml version="1.0"?><opml version="2.0"><body>
<outline text="tab" xmlUrl="http://c.test/fe&#9;ed"/>
<outline text="c" xmlUrl="http://c.test/feed"/>
</body></opml>`
	if err := os.WriteFile(list, []byte(opml), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	out, _, err := run(t, "feeds", "import", list, "--data", data)
	for _, want := range []string{
		"1 feeds subscribed, 0 already subscribed, 0 repeated in the file, 1 skipped\n",
		`  skipped: line 2 "http://c.test/fe\ted": must be a URL with no ASCII control character`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("feeds import:\n%s\nwant %q", out, want)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "1 outlines skipped") {
		t.Errorf("feeds import: %v, want an error counting the skipped outline", err)
	}
}
