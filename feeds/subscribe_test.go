package feeds

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/deltaq/deltaq/internal/urlnorm"
)

// TestSubscribeRefusesAURLWithAControlCharacter: "http://a.test/\x00"
// was normalized as a link in a page is, the NUL trimmed, and the page
// http://a.test/ subscribed in its place.
func TestSubscribeRefusesAURLWithAControlCharacter(t *testing.T) {
	s, _ := openStore(t, vfs.NewMem(), "")
	for _, u := range []string{"http://site0.synth.test/\x00", "http://a.test/feed\x1b", "http://a.test/a\tb"} {
		_, _, err := s.Subscribe(t.Context(), u, AddOptions{}, t0)
		var se *SettingError
		if !errors.As(err, &se) || se.Setting != "url" || se.Value != u || !strings.Contains(se.Limit, urlnorm.GivenRule) {
			t.Errorf("Subscribe(%q): %v, want a SettingError on url with the rule", u, err)
		}
	}
	if list, err := s.List(t.Context()); err != nil || len(list) != 0 {
		t.Errorf("feeds after the refused subscriptions: %v, %v; want none", list, err)
	}
	if f, _, err := s.Subscribe(t.Context(), " http://a.test/feed\n", AddOptions{}, t0); err != nil || f.URL != "http://a.test/feed" {
		t.Errorf("a URL with a space before and a newline after: %+v, %v; want it trimmed and subscribed", f, err)
	}
}

// TestSubscribeRefusesANameOrFoldersItWouldCut: a name or folders the
// subscriber sets were cut to what the store keeps (1,022 bytes, 8
// folders) and a NUL name or an empty folder taken; each is refused,
// naming the field, and nothing changes. An import's (neither set) are
// still cut, as a foreign list's must be.
func TestSubscribeRefusesANameOrFoldersItWouldCut(t *testing.T) {
	s, _ := openStore(t, vfs.NewMem(), "")
	const u = "http://a.test/feed"
	named := AddOptions{Name: "A", SetName: true, Folders: []string{"Tech"}, SetFolders: true}
	if _, _, err := s.Subscribe(t.Context(), u, named, t0); err != nil {
		t.Fatal(err)
	}
	thirty := make([]string, 30)
	for i := range thirty {
		thirty[i] = fmt.Sprint("f", i)
	}
	long := strings.Repeat("n", 5000)
	for _, c := range []struct {
		name    string
		o       AddOptions
		setting string
	}{
		{"a name of 5,000 bytes", AddOptions{Name: long, SetName: true}, "name"},
		{"a name of a NUL", AddOptions{Name: "\x00", SetName: true}, "name"},
		{"a name with a newline", AddOptions{Name: "a\nb", SetName: true}, "name"},
		{"a name of invalid UTF-8", AddOptions{Name: "a\xffb", SetName: true}, "name"},
		{"30 folders", AddOptions{Folders: thirty, SetFolders: true}, "folders"},
		{"an empty folder", AddOptions{Folders: []string{""}, SetFolders: true}, "folders[0]"},
		{"a blank folder", AddOptions{Folders: []string{"Tech", " "}, SetFolders: true}, "folders[1]"},
		{"a folder of 5,000 bytes", AddOptions{Folders: []string{"Tech", "Go", "x", long}, SetFolders: true}, "folders[3]"},
		{"a folder with a control character", AddOptions{Folders: []string{"a\x7fb"}, SetFolders: true}, "folders[0]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := s.Subscribe(t.Context(), u, c.o, t0)
			var se *SettingError
			if !errors.As(err, &se) || se.Setting != c.setting {
				t.Fatalf("Subscribe: %v, want a SettingError on %s", err, c.setting)
			}
			if msg := err.Error(); len(msg) > 600 || !strings.Contains(msg, "1024 bytes") && !strings.Contains(msg, "at most 8 folders") {
				t.Errorf("the error %q is over 600 bytes or does not name the limit", msg)
			}
			if f, err := s.Get(IDOf(u)); err != nil || f.Name != "A" || !slices.Equal(f.Folders, []string{"Tech"}) {
				t.Errorf("the feed after the refusal: %q %q, %v; want it as it was", f.Name, f.Folders, err)
			}
		})
	}
	full := AddOptions{Name: strings.Repeat("é", MaxTitleBytes/2), SetName: true, Folders: thirty[:MaxFolders], SetFolders: true}
	if f, _, err := s.Subscribe(t.Context(), u, full, t0); err != nil || f.Name != full.Name || !slices.Equal(f.Folders, full.Folders) {
		t.Errorf("a name of %d bytes and %d folders: %q %q, %v; want both kept whole", len(full.Name), MaxFolders, f.Name, f.Folders, err)
	}
	imported := AddOptions{Name: long, Folders: thirty}
	f, _, err := s.Subscribe(t.Context(), "http://b.test/feed", imported, t0)
	if err != nil || len(f.Name) > MaxTitleBytes || len(f.Folders) != MaxFolders {
		t.Errorf("an import's long name and 30 folders: %d bytes, %d folders, %v; want them cut, not refused", len(f.Name), len(f.Folders), err)
	}
}
