// Package relationeval evaluates keeping a relation fresh through keyword
// search (package relation; Yang et al., SIGMOD 2010) in two settings.
//
//	synth.go    `deltaq eval relation --synth citations`: Fig. 2 of §5.2
//	            re-run as the paper specifies it, SYNTHETIC as in the
//	            paper: 1,000 papers with initial citations from
//	            NC(x) = 2/x³, w = citations, Poisson updates at
//	            λ = 0.25 × citations, 200 groups of at most 10 (one query
//	            each), 10 requests per time unit, 500 units, 10 seeds;
//	            Naive 1, Naive 2 and Greedy (GreedyProbes plus the §4.3
//	            order) over the same update events, F(L;t) of Eq. 3
//	            realised and integrated exactly (relation.Tracker).
//	archive.go  `deltaq eval relation --archive DIR --log FILE`: real
//	            weekly pages, ADDED search interface. The pages of the
//	            commands a query log names, weighted by install count, are
//	            tracked through the replay server's /search over loopback
//	            HTTP with the relation client, for every budget and method,
//	            over every weekly transition; plus the Fig. 3 analogue
//	            (coverage and speed-up against the keyword-set size k,
//	            Methods 1 and 2) on week 0.
//
// State: everything is in memory for one run — the archive, one replay
// server, and per (budget, method) the local copy's versions, learned
// rates and a Tracker (O(|L|) each). Reports: report.md, results.csv and
// SVG/PNG plots, reproducible from the configuration (the synthetic run
// from its seeds; the archive run is deterministic).
//
// Usage:
//
//	sum, err := relationeval.RunSynth(ctx, cfg.Eval.Relation.Synth, "out/relation-synth", os.Stderr)
//	sum, err = relationeval.RunArchive(ctx, cfg.Eval.Relation.Archive, "out/relation", os.Stderr)
//	for _, t := range sum.Targets { fmt.Println(t.Name, t.Met, t.Measured) }
package relationeval
