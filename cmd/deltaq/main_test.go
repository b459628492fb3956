package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/internal/datasets"
)

// binary is the deltaq executable built for tests that run it as a real
// process (kill -9, signals).
var binary string

func TestMain(m *testing.M) {
	if os.Getenv(signalChildEnv) != "" {
		os.Exit(m.Run()) // the child of TestASecondSignalStopsAtOnce needs no binary
	}
	dir, err := os.MkdirTemp("", "deltaq-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "deltaq")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building deltaq for tests: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run executes the command tree in process and returns stdout, stderr.
func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := newRootCmd(&out, &errb)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(t.Context())
	return out.String(), errb.String(), err
}

func TestConfigPrintShowsEffectiveValues(t *testing.T) {
	t.Setenv("DELTAQ_CRAWLER_POLITENESS_MIN_DELAY", "2s")
	out, _, err := run(t, "config", "print", "--log-level", "debug")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"min_delay: 2s", "level: debug", "policy: uniform"} {
		if !strings.Contains(out, want) {
			t.Errorf("config print lacks %q", want)
		}
	}
}

// TestAMissingArgumentIsNamed: a command given too few arguments says
// which it takes, with its usage line, rather than only how many.
func TestAMissingArgumentIsNamed(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"backup", "--data", "d"}, "usage: deltaq backup (--data DIR | --server ADMIN_URL) OUT"},
		{[]string{"page", "explain", "--data", "d"}, "usage: deltaq page explain URL"},
		{[]string{"cluster", "forget", "--cluster", "nats://127.0.0.1:1"}, "NODE"},
		{[]string{"watch", "key", "ada", "bob"}, "usage: deltaq watch key USER"},
	} {
		_, _, err := run(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), "arg(s)") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v; want the count refused with %q", c.args, err, c.want)
		}
	}
}

// TestAGroupRefusesAWordThatNamesNoCommand walks the command tree: every
// group of commands (deltaq index, feeds, ...) given a word that names none
// of its commands fails naming the word and the group, with the command
// the word is closest to, and alone prints its help. A mistyped command
// used to print the help and succeed.
func TestAGroupRefusesAWordThatNamesNoCommand(t *testing.T) {
	var groups []*cobra.Command
	eachCommand(newRootCmd(io.Discard, io.Discard), func(c *cobra.Command) {
		if c.HasParent() && c.HasSubCommands() {
			groups = append(groups, c)
		}
	})
	if len(groups) < 10 {
		t.Fatalf("%d groups found; the walk missed commands", len(groups))
	}
	for _, g := range groups {
		path := strings.Fields(g.CommandPath())[1:]
		_, _, err := run(t, append(path, "zzzz")...)
		if want := fmt.Sprintf("unknown command %q for %q", "zzzz", g.CommandPath()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s zzzz: error %v, want one containing %s", g.CommandPath(), err, want)
		}
		out, _, err := run(t, path...)
		if err != nil || !strings.Contains(out, "Available Commands:") {
			t.Errorf("%s alone: error %v, output %q; want its help", g.CommandPath(), err, out)
		}
	}
	// One letter dropped from a command's name is suggested, with or
	// without the flags of the command meant after it: those flags used to
	// be blamed ("unknown flag: --data").
	for _, args := range [][]string{
		{"index", "rebuld"},
		{"index", "rebuld", "--data", "d"},
		{"index", "rebuld", "--data=d", "--json"},
	} {
		if _, _, err := run(t, args...); err == nil || !strings.Contains(err.Error(), `unknown command "rebuld" for "deltaq index"; did you mean rebuild?`) {
			t.Errorf("%q: %v, want rebuild suggested", args, err)
		}
	}
	// cobra's own groups are groups too: completion, and help, whose words
	// name a command.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"completion", "bogus"}, `unknown command "bogus" for "deltaq completion" (commands: bash, fish, powershell, zsh;`},
		{[]string{"help", "bogus"}, `help bogus: unknown command "bogus" for "deltaq" (commands: ads, alert, backup,`},
		{[]string{"help", "crwal"}, `help crwal: unknown command "crwal" for "deltaq"; did you mean crawl?`},
		{[]string{"help", "index", "bogus"}, `help index bogus: unknown command "bogus" for "deltaq index" (commands: rebuild;`},
		{[]string{"help", "crawl", "bogus"}, `help crawl bogus: unknown command "bogus" for "deltaq crawl" (deltaq crawl has no commands)`},
	} {
		if out, _, err := run(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v\n%s; want an error containing %s", c.args, err, out, c.want)
		}
	}
	for _, args := range [][]string{{"help"}, {"help", "index"}, {"help", "completion"}} {
		if out, _, err := run(t, args...); err != nil || !strings.Contains(out, "Available Commands:") {
			t.Errorf("%q: error %v, output %q; want the help", args, err, out)
		}
	}
	if _, _, err := run(t, "page", "explian", "http://a.test/", "--data", "d"); err == nil || !strings.Contains(err.Error(), `unknown command "explian" for "deltaq page"; did you mean explain?`) {
		t.Errorf("page explian URL --data d: %v, want explain suggested", err)
	}
	// A flag the group lacks, with no word, is still the flag's fault; a
	// command's own bad flag stays its own.
	if _, _, err := run(t, "index", "--data", "d"); err == nil || !strings.Contains(err.Error(), "unknown flag: --data") {
		t.Errorf("index --data d: %v, want the flag refused", err)
	}
	if _, _, err := run(t, "page", "explain", "http://a.test/", "--bogus"); err == nil || !strings.Contains(err.Error(), "unknown flag: --bogus") {
		t.Errorf("page explain URL --bogus: %v, want the flag refused", err)
	}
}

func TestBadInputGivesClearErrors(t *testing.T) {
	topics := filepath.Join(t.TempDir(), "topics.tsv")
	if err := os.WriteFile(topics, []byte("1\tbudget\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"crawl", "--seeds", "http://a.test/"}, "--data"},
		{[]string{"crawl", "--data", t.TempDir(), "--seeds", "ftp://a.test/"}, "unsupported scheme"},
		{[]string{"crawl", "--data", t.TempDir(), "--max-pages", "-1"}, "--max-pages = -1"},
		{[]string{"crawl", "--data", t.TempDir(), "--resolve", "nohost"}, `crawler.resolve[0] = "nohost"`},
		// Cluster flags without a cluster would be ignored: the command
		// would run alone.
		{[]string{"crawl", "--data", t.TempDir(), "--seeds", "http://a.test/", "--node", "n1"}, "--node n1: only a cluster node reads it; give --cluster"},
		{[]string{"crawl", "--data", t.TempDir(), "--seeds", "http://a.test/", "--wait-nodes", "3"}, "--wait-nodes 3: only a cluster node reads it"},
		{[]string{"serve", "--data", t.TempDir(), "--node", "n1"}, "--node n1: only a cluster node reads it"},
		{[]string{"crawl", "--data", t.TempDir()}, "nothing to crawl"},
		// An empty --seeds is no seed, not --seeds left out.
		{[]string{"crawl", "--data", t.TempDir(), "--seeds", ""}, `--seeds "": empty; give at least one URL, or leave --seeds out to resume`},
		{[]string{"crawl", "--data", t.TempDir(), "--seeds", " , ,"}, `--seeds " , ,": empty`},
		{[]string{"crawl", "--server", "http://127.0.0.1:1", "--seeds", ""}, `--seeds "": empty`},
		// Nothing can be fetched at port 0.
		{[]string{"crawl", "--data", t.TempDir(), "--seeds", "http://example.com:0/"}, `seed "http://example.com:0/": port 0`},
		// An empty OUT used to fail renaming the backup to no name.
		{[]string{"backup", "--data", t.TempDir(), ""}, "OUT: empty; give the new directory to write the backup to"},
		{[]string{"backup", "--server", "http://127.0.0.1:1", ""}, "OUT: empty"},
		{[]string{"web", "replay", "--archive", t.TempDir()}, "--archive"},
		{[]string{"demo", "--listen", "bad"}, `server.listen = "bad": must be host:port`},
		{[]string{"serve", "--data", t.TempDir(), "--listen", "127.0.0.1:99999"}, `server.listen = "127.0.0.1:99999": must be host:port: the port "99999" is not a number from 0 to 65535`},
		{[]string{"config", "print", "--config", "/nonexistent.yaml"}, "nonexistent.yaml"},
		// Numbers that parse but mean nothing: NaN passes a range check
		// written v < lo || v > hi, and money cannot hold 1e300.
		{[]string{"ads", "create-advertiser", "--data", t.TempDir(), "--name", "a", "--daily-budget", "NaN"}, "--daily-budget = NaN"},
		{[]string{"ads", "create-advertiser", "--data", t.TempDir(), "--name", "a", "--daily-budget", "1e300"}, "--daily-budget = 1e+300"},
		// A budget under one micro would round to 0, which is no budget.
		{[]string{"ads", "create-advertiser", "--data", t.TempDir(), "--name", "a", "--daily-budget", "0.0000001"}, "--daily-budget = 1e-07: must be 0 or at least 0.000001"},
		{[]string{"web", "feeds", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--speed", "Inf"}, "--speed = +Inf"},
		{[]string{"web", "feeds", "--data", "/nonexistent/feeds", "--listen", "127.0.0.1:0"}, "--data = /nonexistent/feeds: no such file or directory"},
		{[]string{"web", "feeds", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--speed", "1e10"}, "--speed = 1e+10: must be > 0 and ≤ 1e+06"},
		{[]string{"feeds", "add", "http://a.test/feed", "--data", t.TempDir(), "--weight", "Inf"}, `--weight = "+Inf"`},
		{[]string{"feeds", "add", "http://a.test/feed", "--data", t.TempDir(), "--weight", "0"}, `--weight = "0": must be a finite number > 0`},
		{[]string{"feeds", "add", "http://a.test/feed", "--data", t.TempDir(), "--min-interval", "2h", "--max-interval", "1h"}, `--min-interval = "2h0m0s": must be ≤ --max-interval (1h0m0s)`},
		{[]string{"feeds", "add", "ftp://a.test/feed", "--data", t.TempDir()}, `URL "ftp://a.test/feed": must be an absolute http or https URL`},
		{[]string{"eval", "ir", "--data", t.TempDir(), "--qrels", "q", "--out", t.TempDir()}, "--topics: a topics file"},
		{[]string{"eval", "ir", "--data", t.TempDir(), "--topics", "t", "--out", t.TempDir()}, "--qrels: a qrels file"},
		{[]string{"eval", "ir", "--data", t.TempDir(), "--topics", "t", "--qrels", "q"}, "--out: an output directory"},
		{[]string{"eval", "ir", "--data", t.TempDir(), "--topics", "/nonexistent/topics.tsv", "--qrels", "q", "--out", t.TempDir()}, "--topics: open /nonexistent/topics.tsv"},
		{[]string{"eval", "ir", "--data", t.TempDir(), "--topics", topics, "--qrels", "/nonexistent/qrels.txt", "--out", t.TempDir()}, "--qrels: open /nonexistent/qrels.txt"},
		{[]string{"eval", "discovery", "--archive", t.TempDir()}, "--out: an output directory"},
		{[]string{"eval", "discovery", "--out", t.TempDir()}, "--archive: at least one"},
		// An input that is not there is named by its flag, and by the key
		// the flag sets, since either may have given it.
		{[]string{"eval", "discovery", "--archive", t.TempDir(), "--archive", "/nonexistent/a", "--out", t.TempDir()}, "--archive = /nonexistent/a: no such file or directory"},
		{[]string{"eval", "ads", "--log", "/nonexistent/log.tsv", "--ctr", "../../datasets/ads/obd-item-ctr.tsv", "--out", t.TempDir()}, "--log (eval.ads.log) = /nonexistent/log.tsv: no such file or directory"},
		{[]string{"eval", "ads", "--ctr", "/nonexistent/ctr.tsv", "--out", t.TempDir()}, "--ctr (eval.ads.ctr_file) = /nonexistent/ctr.tsv: no such"},
		{[]string{"eval", "sync", "--archive", "/nonexistent/a", "--out", t.TempDir()}, "--archive (eval.sync.archive) = /nonexistent/a: no such"},
		{[]string{"eval", "feeds", "--feeds", "/nonexistent/f", "--out", t.TempDir()}, "--feeds (eval.feeds.feeds) = /nonexistent/f: no such"},
		{[]string{"eval", "monitor", "--archive", "/nonexistent/a", "--out", t.TempDir()}, "--archive (eval.monitor.archive) = /nonexistent/a: no such"},
		{[]string{"eval", "relation", "--archive", "/nonexistent/a", "--out", t.TempDir()}, "--archive (eval.relation.archive.archive) = /nonexistent/a: no such"},
		{[]string{"eval", "sentinels", "--archive", "/nonexistent/a", "--accuracy-pages", "0", "--out", t.TempDir()}, "--archive (eval.sentinels.archive) = /nonexistent/a: no such"},
		{[]string{"eval", "sentinels", "--archive", datasets.Path(t, "archives", "tldr-en"), "--accuracy-archives", "/nonexistent/b", "--out", t.TempDir()},
			"--accuracy-archives (eval.sentinels.accuracy_archives) = /nonexistent/b: no such"},
		{[]string{"eval", "fanout", "--archive", "/nonexistent/a", "--log", "x", "--out", t.TempDir()}, "--archive = /nonexistent/a: no such"},
		{[]string{"eval", "ir", "--archive", "/nonexistent/a", "--data", t.TempDir(), "--topics", "t", "--qrels", "q", "--out", t.TempDir()}, "--archive = /nonexistent/a: no such"},
		{[]string{"eval", "ir", "--data", t.TempDir(), "--topics", "t", "--qrels", "q", "--out", t.TempDir(), "--users", "100000000"}, "--users = 100000000: must be in [1, 1000]"},
		{[]string{"eval", "ir", "--blend-weight", "NaN", "--data", t.TempDir(), "--topics", "t", "--qrels", "q", "--out", t.TempDir()}, `ranking.blend_weight = "NaN": must be a finite number`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, _, err := run(t, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
		})
	}
}

// TestCrawlWithABadSeedCreatesNothing: the seeds are checked before the
// data directory is made, where a bad one used to leave an empty
// repository behind its error.
func TestCrawlWithABadSeedCreatesNothing(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	if _, _, err := run(t, "crawl", "--data", data, "--seeds", "http://a.test/,ftp://a.test/"); err == nil || !strings.Contains(err.Error(), "ftp://a.test/") {
		t.Fatalf("a crawl with an ftp seed: %v", err)
	}
	if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s after the refused crawl: %v, want nothing there", data, err)
	}
}

// TestFeedsImportOfABadFileCreatesNothing: the OPML file is read before
// the data directory is made, so a file that is missing or not OPML
// leaves none.
func TestFeedsImportOfABadFileCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	notOPML := filepath.Join(dir, "page.opml")
	if err := os.WriteFile(notOPML, []byte("<html><body>not a list of feeds</body></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{filepath.Join(dir, "missing.opml"), notOPML} {
		data := filepath.Join(dir, "data")
		if _, _, err := run(t, "feeds", "import", file, "--data", data); err == nil || !strings.Contains(err.Error(), file) {
			t.Fatalf("import of %s: %v", file, err)
		}
		if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s after the refused import of %s: %v, want nothing there", data, file, err)
		}
	}
}

// TestCommandsThatReadARepositoryRefuseADirectoryWithout runs every
// command that reads a crawled repository on a --data directory that has
// none (a mistyped path): each stops with an error naming the directory,
// and creates nothing there, where it used to create an empty repository
// and report on it (serve served it; eval ir scored it, watch list and
// alert list listed nothing).
func TestCommandsThatReadARepositoryRefuseADirectoryWithout(t *testing.T) {
	dir := t.TempDir()
	topics, qrels := filepath.Join(dir, "topics.tsv"), filepath.Join(dir, "qrels.txt")
	if err := os.WriteFile(topics, []byte("1\tcherry\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(qrels, []byte("1 0 http://a.test/ 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"serve"},
		{"hosts"},
		{"queue"},
		{"rm", "http://a.test/"},
		{"index", "rebuild"},
		{"page", "explain", "http://a.test/"},
		{"export", "--out", filepath.Join(t.TempDir(), "out.warc")},
		{"backup", filepath.Join(t.TempDir(), "copy")},
		{"feeds", "list"},
		{"feeds", "rm", "http://a.test/feed.xml"},
		{"feeds", "explain", "http://a.test/feed.xml"},
		{"relation", "list"},
		{"relation", "show", "r"},
		{"relation", "sync", "r"},
		{"eval", "ir", "--topics", topics, "--qrels", qrels, "--out", filepath.Join(t.TempDir(), "ir")},
		{"watch", "list"},
		{"watch", "show", "w1"},
		{"watch", "history", "w1"},
		{"watch", "rm", "w1"},
		{"alert", "list"},
		{"alert", "rm", "a1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "mistyped")
			_, _, err := run(t, append(args, "--data", data)...)
			if err == nil || !strings.Contains(err.Error(), "--data "+data+": no repository there") {
				t.Fatalf("err = %v, want it to say %s holds no repository", err, data)
			}
			if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("%s: %v, want it left uncreated", data, err)
			}
		})
	}
}

// signalChildEnv, set in the environment of the test binary, makes
// TestASecondSignalStopsAtOnce the process that signals itself.
const signalChildEnv = "DELTAQ_TEST_SIGNAL_CHILD"

// TestASecondSignalStopsAtOnce: the first SIGINT cancels the command's
// context; the second, for a stop that takes too long, ends the process
// at once, where it used to be caught and ignored until the stop ended.
func TestASecondSignalStopsAtOnce(t *testing.T) {
	if os.Getenv(signalChildEnv) != "" {
		ctx := stopOnSignal(io.Discard)
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		<-ctx.Done()
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		time.Sleep(30 * time.Second) // a stop that takes long
		os.Exit(0)                   // reached only if the second signal was caught
	}
	child := exec.Command(os.Args[0], "-test.run=^TestASecondSignalStopsAtOnce$", "-test.count=1")
	child.Env = append(os.Environ(), signalChildEnv+"=1")
	err := child.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("child: %v, want it ended by the second SIGINT", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Fatalf("child: %v, want it ended by the second SIGINT", err)
	}
}
