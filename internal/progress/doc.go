// Package progress reports how far a long job is: the evaluations' runs
// and the weeks within them, with an ETA, on one line at a time.
//
// A Tracker is the one progress reporter the evaluations share. A job is
// a sequence of stages (eval sync: the forecast run, then the sweep); a
// stage has runs, each of some units (weeks, simulations, topics). Step
// counts a unit, RunDone a run; a line is printed at most every Every of
// the Tracker's clock, so a stage that takes minutes is never silent and a
// fast one does not flood the terminal. The ETA is the stage's time so far
// divided by the units done, times the units left: it counts parallel
// runs, since they finish units faster. State: the current stage's counts
// and the time of the last line; nothing grows.
//
// A Tracker is also an io.Writer: the lines an evaluation already writes
// (one per finished run) pass through it, so one writer carries both.
//
//	p := progress.New(os.Stderr, clock.Real{}, 5*time.Second)
//	p.Stage("sweep", len(specs), weeks)
//	for each week { ...; p.Step() }   // "sweep: run 3/50, week 130/2400 (5.4%), 1m2s, ETA 18m20s"
//	p.RunDone()
//	synceval.Run(ctx, cfg, out, p)    // takes it as its progress writer
package progress
