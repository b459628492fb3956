// Package relation keeps a local relation fresh through a site's keyword
// search: the algorithms of Yang, Wang, Lim and Wang, "Optimizing Content
// Freshness of Relations Extracted From the Web Using Keyword Search"
// (SIGMOD 2010; the monitoring digest §4), and the user relations built
// on them.
//
// A relation L is a set of records from one source, each with keywords, a
// weight w(r) and an update rate λ. The source answers a keyword query
// with at most K results in pages of p; fetching one record by ID costs
// one request. The package decides which queries to send, in what order
// and how often, and keeps what they return:
//
//	freshness.go  F(e;t) = Σ_{t_i∈U}(t − t_i) and F(L;t) = (1/|L|)Σ w·F
//	              (§3.1 Def. 1, §4.2 Eq. 3, Table 2); E[F(e;t)] = ½λt²
//	              (§4.2)
//	tracker.go    F(L;t) in O(1) per update or sync, integrated exactly
//	              for the time average (§4.3 measures one instant only)
//	probes.go     GreedyProbes (§4 Alg. 2) with the efficiency of Eq. 2
//	              over keyword subsets up to size 2 (§5.1) drawn from a
//	              bounded pool of the most frequent uncovered keywords;
//	              Eq. 2's denominator |R_S(q)| as printed, or p·N(q), the
//	              results the requests transmit (equal in the paper's
//	              continuous N(q), apart by whole-page rounding)
//	coverage.go   result extraction Method 1 (all pages) and Method 2
//	              (first page), N(q), E_coverage(q), the coverage and
//	              speed-up ratios (§5.1); server coverage |R_S(q)| from
//	              the hit count the source reports or scaled from a
//	              sample, |R_S(q)| ≈ c·|R_sample(q)| (§4.1)
//	order.go      a_i and the ascending-a_i order minimising Eq. 4 (§4.3,
//	              Table 3)
//	interval.go   g(x̃, I) and the doubling and binary search for the
//	              query interval I under α (§4.4)
//	naive.go      the ID-fetching baselines Naive 1 and Naive 2 (§5.2)
//	rate.go       update rates learned online from what syncs observe:
//	              counted updates (a numeric field's |Δ|) or Cho and
//	              Garcia-Molina's estimator for "changed", shrunk towards
//	              a prior so a rate never sticks at 0
//	source.go     a source: search URL template ({q}, {page}), item URL
//	              template ({id}), p and K, CSS selectors for hits, IDs,
//	              the reported total and the fields (extract.go)
//	opensearch.go a source's search template from an OpenSearch description
//	client.go     requests to a source: robots.txt (crawler/robots) and a
//	              per-source quota on every request and redirect hop,
//	              back-off on 429 (Retry-After up to an hour, or
//	              doubling), a body limit; garbage is an error, not data
//	store.go      definitions, records, field-level changes, reported hit
//	              counts in the repository's relation bucket (FORMAT.md)
//	sync.go       one pass of RefreshLocal (Alg. 1): plan, order, I, send;
//	              then ID fetches for records no probe reached
//	keep.go       Keeper: every relation synced relation.sync_every after
//	              its last sync, while deltaq serve or run holds the store
//
// State. The planning functions are pure: they read a []Tuple and return
// a Plan. GreedyProbes holds an inverted index of the tuples' keywords and
// a cache of server-coverage estimates for one call; its candidates per
// iteration are bounded by Pool + Pool·(Pool−1)/2. A Client holds one
// robots.txt group per host of its source (a source has one or two) and
// its quota clock. The store's keys are listed in repo/FORMAT.md; each
// request's results are one batch, so a sync that fails part-way keeps
// what it read and loses nothing stored. A sync holds the relation's rows
// in memory (O(|L|)); the change log is kept whole, and Changes scans it
// from the start. Defaults: configs/default.yaml, "relation".
//
// Usage:
//
//	plan, err := relation.GreedyProbes(tuples, now, relation.ReportedHits(counts),
//		relation.ProbeOptions{Interface: relation.Interface{PageSize: 10, MaxResults: 100},
//			Method: relation.AllPages, MaxKeywords: 2, Pool: 50})
//	order := relation.AscendingOrder(relation.GroupCosts(tuples, plan.Probes, interval))
//	interval, err := relation.SearchInterval(relation.FrequencyG(tuples, plan.Probes), alpha, 1, 0.001)
//
//	st := relation.NewStore(db)
//	cl, err := relation.NewClient(def.Source, cfg.Relation.ClientOptions(userAgent))
//	rep, err := relation.Sync(ctx, st, cl, "papers", time.Now(), cfg.Relation.SyncOptions(false))
package relation
