// Command deltaq crawls, indexes, serves and evaluates: an incremental crawler
// that re-fetches pages by the change in search quality they bring (ΔQ),
// discovers new pages through OD-WIN covers, and serves search with
// randomized rank promotion and BMIX-ranked ads.
//
// main only wires: it parses flags, loads the configuration, opens the
// repository and index, and runs the components until a signal arrives.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	err := newRootCmd(os.Stdout, os.Stderr).ExecuteContext(stopOnSignal(os.Stderr))
	if err != nil {
		if errors.Is(err, context.Canceled) {
			// Interrupted: say what was kept, if the command said it.
			if err.Error() == context.Canceled.Error() {
				err = errors.New("interrupted")
			}
			fmt.Fprintln(os.Stderr, "deltaq:", err)
			os.Exit(130)
		}
		fmt.Fprintln(os.Stderr, "deltaq:", err)
		os.Exit(1)
	}
}

// stopOnSignal returns a context cancelled by the first SIGINT or
// SIGTERM, which asks the command to stop as it should: a crawl commits
// what it fetched, an evaluation writes or removes its output, a server
// lets requests finish within server.http.shutdown_timeout. The second
// signal has its default action and ends the process at once, as kill
// does, for a stop that takes longer than one will wait.
func stopOnSignal(w io.Writer) context.Context {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-sigs
		signal.Stop(sigs)
		cancel()
		fmt.Fprintln(w, "deltaq: stopping; a second Ctrl-C stops at once")
	}()
	return ctx
}
