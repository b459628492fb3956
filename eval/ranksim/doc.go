// Package ranksim evaluates randomized rank promotion the way thesis ch. 5
// does: a simulator of a Web community whose pages are born, become known
// through a search engine's ranked results and retire (§5.7), and the
// analytic model of the same community's steady state (§5.6); together they
// reproduce figs. 5.2–5.11 as report tables and plots (`deltaq eval
// ranking`).
//
// Model (§5.4, §5.6.1, §5.7.1): n pages of fixed quality Q (a power law with
// maximum 0.4), u users making v_u visits a day, m of them monitored;
// awareness A(p,t) is the share of monitored users who have visited p,
// popularity P = A·Q; pages retire at rate λ = 1/l and are replaced by pages
// of equal quality and zero awareness; visits go to rank positions with
// probability ∝ rank^(−3/2) (eq. 5.5). Metrics: QPC (eq. 5.2, normalized by
// ranking by true quality) and TBP (time until popularity exceeds 99 % of
// quality, §5.4.2).
//
// Simulation (sim.go) works in daily steps: the ranking is rebuilt once a
// day from the popularity measured the day before, and each visit draws its
// rank position and resolves it through the §5.5 merge without building
// the list (the merge's marginal at one position is sampled directly).
// Nonrandomized, selective, uniform and ideal rankings and mixed surfing
// (§5.9) are supported. TBP is measured on probe pages that see the visits
// a page of quality 0.4 would get without disturbing the community.
//
// Analysis (analysis.go): Theorem 2's awareness distribution, F(x) solved by
// the iteration of §5.6.3 with the log-log quadratic fit, TBP and QPC; the
// notes in the report list where the printed equations and our reading
// differ.
//
// Bounds: one run holds O(n) state (a few arrays of n entries) plus its
// probes; Run keeps every run's summary (a few numbers) until the report
// is written. The full plan takes a few minutes on two cores; Quick scales
// the community down tenfold and thins the grids.
//
//	s, err := ranksim.Run(ctx, ranksim.Config{Seed: 1}, "out/ranking", os.Stderr)
//	// out/ranking/report.md, results.csv, fig5_4_tbp.svg, fig5_4_tbp.png, ...
//	for _, t := range s.Targets {
//		fmt.Println(t.Name, t.Met, t.Measured)
//	}
package ranksim
