package main

import (
	"os/exec"
	"testing"
)

// proc is a child process of a test, reaped by one goroutine (a second
// Wait would race with it on the process state): exited is closed once
// Wait has returned, and err is its result.
type proc struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error
}

// startProc starts cmd and reaps it once drain, which reads its pipes to
// their end (Wait must come after; nil: none), has returned. The process
// is killed when the test ends.
func startProc(t *testing.T, cmd *exec.Cmd, drain func()) *proc {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, exited: make(chan struct{})}
	go func() {
		if drain != nil {
			drain()
		}
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(p.kill)
	return p
}

// kill kills the process if it still runs and waits until it is reaped.
func (p *proc) kill() {
	p.cmd.Process.Kill()
	<-p.exited
}
