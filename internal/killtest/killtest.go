// Package killtest kills a process with SIGKILL once it has reported enough
// progress, for the tests that check what survives a crash (kill -9): the
// repository's batches, the index's watermark, a whole crawl.
package killtest

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Child returns a command that re-runs the current test binary for the test
// named test alone, with env set to value: the test sees the variable and
// plays the child's part.
func Child(test, env, value string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env+"="+value)
	return cmd
}

// KillAfter starts cmd and reads its progress lines from standard output
// (standard error with fromStderr); progress parses a line into a count.
// Once a count reaches until, or the output ends, the process is killed
// with SIGKILL and reaped. It returns the last count read, -1 for none.
func KillAfter(t testing.TB, cmd *exec.Cmd, fromStderr bool, progress func(line string) (int, bool), until int) int {
	t.Helper()
	var out io.ReadCloser
	var err error
	if fromStderr {
		out, err = cmd.StderrPipe()
	} else {
		out, err = cmd.StdoutPipe()
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	last := -1
	for sc := bufio.NewScanner(out); sc.Scan(); {
		if n, ok := progress(sc.Text()); ok {
			if last = n; last >= until {
				break
			}
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	return last
}

// Prefixed parses progress lines "<prefix><count>".
func Prefixed(prefix string) func(line string) (int, bool) {
	return func(line string) (int, bool) {
		n, err := strconv.Atoi(strings.TrimPrefix(line, prefix))
		return n, err == nil
	}
}
