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
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRootCmd(os.Stdout, os.Stderr).ExecuteContext(ctx)
	stop()
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
