package discoveryeval

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/deltaq/deltaq/eval/archive/archivetest"
	tracker "github.com/deltaq/deltaq/internal/progress"
)

// TestRunShowsThePageVersionsOfEveryArchiveWithAnETA: the progress counts
// the page versions parsed over all the archives, most of the run, in
// one stage of the shared progress, with an ETA.
func TestRunShowsThePageVersionsOfEveryArchiveWithAnETA(t *testing.T) {
	var dirs []string
	for _, name := range []string{"tiny", "tiny2"} {
		dir := filepath.Join(t.TempDir(), name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		archivetest.Write(t, dir, fixture(name, tinySite()))
		dirs = append(dirs, dir)
	}
	var out strings.Builder
	if _, err := Run(t.Context(), tinyConfig(), dirs, t.TempDir(), tracker.New(&out, nil, 0)); err != nil { // a line at every step
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^discovery: (\d+) page versions$`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no stage of page versions:\n%s", out.String())
	}
	for _, want := range []string{
		`(?m)^discovery: page version 1/` + m[1] + ` \(.*%\), \d+s, ETA \d+`,
		`(?m)^discovery: page version ` + m[1] + `/` + m[1] + ` \(100\.0%\)`,
	} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("progress lacks %s:\n%s", want, out.String())
		}
	}
}
