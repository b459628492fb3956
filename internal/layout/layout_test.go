package layout

import (
	"bufio"
	"bytes"
	"fmt"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/deltaq/deltaq/"

// layers gives each top-level folder its layer (see doc.go), and the few
// sub-folders that stand higher than their folder theirs.
var layers = map[string]int{
	"internal": 0,
	"repo":     1,
	"frontier": 2, "index": 2, "discovery": 2, "ads": 2, "feeds": 2, "diff": 2,
	"crawler": 3, "ranking": 3, "notify": 3,
	"monitor": 4, "cluster": 4, "relation": 4, "alert": 4, "watch": 4,
	"monitor/poll": 5, "web": 5, "eval": 5,
	"configs": 6, "cluster/clustertest": 6,
	"cmd": 7,
}

// folder is the folder a module package path takes its layer from: a
// sub-folder with a row of its own, else its top-level folder.
func folder(pkg string) string {
	rel := strings.TrimPrefix(pkg, module)
	for f := range layers {
		if strings.Contains(f, "/") && (rel == f || strings.HasPrefix(rel, f+"/")) {
			return f
		}
	}
	f, _, _ := strings.Cut(rel, "/")
	return f
}

// violations lists, for each package in imports (path → its non-test
// imports), the imports of the module that run against the layers.
func violations(imports map[string][]string) []string {
	var out []string
	for pkg, deps := range imports {
		from, ok := layers[folder(pkg)]
		if !ok {
			out = append(out, fmt.Sprintf("%s: top-level folder %q has no layer in internal/layout", pkg, folder(pkg)))
			continue
		}
		for _, dep := range deps {
			if !strings.HasPrefix(dep, module) || folder(dep) == folder(pkg) {
				continue
			}
			to, ok := layers[folder(dep)]
			if !ok {
				out = append(out, fmt.Sprintf("%s imports %s, whose top-level folder %q has no layer", pkg, dep, folder(dep)))
			} else if to >= from {
				out = append(out, fmt.Sprintf("%s (layer %d) imports %s (layer %d): against the data flow", pkg, from, dep, to))
			}
		}
	}
	slices.Sort(out)
	return out
}

// moduleImports runs `go list` over the whole module.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	goCmd := filepath.Join(build.Default.GOROOT, "bin", "go") // the toolchain that built this test
	if _, err := os.Stat(goCmd); err != nil {
		if goCmd, err = exec.LookPath("go"); err != nil {
			t.Fatalf("no go command to list the module's packages: %v", err)
		}
	}
	cmd := exec.CommandContext(t.Context(), goCmd, "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", module+"...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	imports := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 {
			imports[f[0]] = f[1:]
		}
	}
	return imports
}

func TestImportsFollowTheDataFlow(t *testing.T) {
	imports := moduleImports(t)
	for _, want := range []string{"repo", "crawler", "frontier", "index", "ranking", "web", "cmd/deltaq"} {
		if _, ok := imports[module+want]; !ok {
			t.Fatalf("go list did not report %s%s: is the module root ../..?", module, want)
		}
	}
	for _, v := range violations(imports) {
		t.Error(v)
	}
}

func TestViolationsNameTheOffendingImport(t *testing.T) {
	got := violations(map[string][]string{
		module + "repo":           {"fmt", module + "internal/urlnorm"},
		module + "index":          {module + "repo", module + "ranking"},
		module + "web":            {module + "eval/report"},
		module + "crawler":        {module + "crawler/extract", module + "frontier"},
		module + "crawler/robots": {module + "internal/urlnorm"},
		module + "gadgets":        {module + "repo"},
	})
	want := []string{
		module + "gadgets: top-level folder \"gadgets\" has no layer in internal/layout",
		module + "index (layer 2) imports " + module + "ranking (layer 3): against the data flow",
		module + "web (layer 5) imports " + module + "eval/report (layer 5): against the data flow",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
