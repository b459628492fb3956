package discovery

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestScripts runs the scenarios in testdata/*.txt. Each case is a
// command, its input lines, a "----" line and the expected output, cases
// separated by blank lines:
//
//	policy OD-WIN alpha=1          a fresh policy (OD-WIN, OD-1, OD-ALL, CLIQ-WIN, CLIQ-1, COV)
//	observe t=1                    a full re-crawl of period t; input "x: 1 2 3" is N(x)
//	select k=2                     the policy's choice, one line of page names
//	greedy k=2 | partial rho=0.9   GREEDY on the last observed H_t
//	clusters epsilon_b=0.8         the clusters of the last observed H_t, one per line
func TestScripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { runScript(t, f) })
	}
}

type scriptCase struct {
	line          int
	cmd           string
	args          map[string]string
	input, expect []string
}

func parseScript(t *testing.T, path string) []scriptCase {
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var cases []scriptCase
	var cur *scriptCase
	inExpect := false
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "#"):
		case line == "":
			cur, inExpect = nil, false
		case cur == nil:
			fields := strings.Fields(line)
			c := scriptCase{line: n, cmd: fields[0], args: map[string]string{}}
			for _, f := range fields[1:] {
				k, v, ok := strings.Cut(f, "=")
				if !ok {
					k, v = "name", f
				}
				c.args[k] = v
			}
			cases = append(cases, c)
			cur = &cases[len(cases)-1]
		case line == "----":
			inExpect = true
		case inExpect:
			cur.expect = append(cur.expect, line)
		default:
			cur.input = append(cur.input, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

func runScript(t *testing.T, path string) {
	var p Policy
	var h *Bipartite
	num := func(c scriptCase, key string) float64 {
		v, err := strconv.ParseFloat(c.args[key], 64)
		if err != nil {
			t.Fatalf("%s:%d: %s=%q: %v", path, c.line, key, c.args[key], err)
		}
		return v
	}
	for _, c := range parseScript(t, path) {
		var out []string
		switch c.cmd {
		case "policy":
			switch c.args["name"] {
			case "OD-WIN":
				p = NewODWin(num(c, "alpha"))
			case "OD-ALL":
				p = NewODAll(num(c, "alpha"))
			case "OD-1":
				p = NewOD1()
			case "CLIQ-WIN":
				p = NewCLIQWin(num(c, "alpha"), num(c, "epsilon_b"))
			case "CLIQ-1":
				p = NewCLIQ1(num(c, "epsilon_b"))
			case "COV":
				p = NewCOV()
			default:
				t.Fatalf("%s:%d: unknown policy %q", path, c.line, c.args["name"])
			}
		case "observe":
			h = coverOf(t, c.input...)
			if p != nil {
				p.Observe(site, int(num(c, "t")), h)
			}
		case "select":
			out = []string{strings.Join(names(p.Select(site, int(num(c, "k")))), " ")}
		case "greedy":
			out = []string{strings.Join(names(Greedy(h, int(num(c, "k")))), " ")}
		case "partial":
			out = []string{strings.Join(names(PartialCover(h, num(c, "rho"))), " ")}
		case "clusters":
			for _, cl := range Clusters(h, num(c, "epsilon_b")) {
				out = append(out, fmt.Sprintf("%s rep=%s q=%.4g", strings.Join(names(cl.Members), " "), names([]string{cl.Rep})[0], cl.Q))
			}
		default:
			t.Fatalf("%s:%d: unknown command %q", path, c.line, c.cmd)
		}
		if strings.Join(out, "\n") != strings.Join(c.expect, "\n") {
			t.Errorf("%s:%d: %s %v:\n got %q\nwant %q", path, c.line, c.cmd, c.args, out, c.expect)
		}
	}
}
