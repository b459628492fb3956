// Package sentineleval measures WebCQ's sentinels on real pages replayed
// week to week over loopback: throughput against group size, install cost
// against the number of sentinels, repository bytes read per check, and
// detection precision and recall per sentinel type over every transition
// of the archives.
//
// WebCQ (Liu, Tang, Buttler, Pu), MONITORING-DIGEST §3.3–3.4:
//
//   - §7.3, Fig. 14–15: 5,000 sentinels took over 62 s ungrouped and
//     14.2 / 7 / 1.3 s with groups of 5 / 10 / 100 (80 → 351 / 708 / 3,698
//     sentinels per second). Here the same sweep runs on digitalgov-2023
//     bodies (4.6 KB mean, against Yahoo's 47 KB: the mean page size is
//     reported beside every row), sentinels spread uniformly or by Zipf
//     (Fig. 13), with the nine types in turn.
//     BenchmarkPageCheck times the two kinds of check a pass mixes, on
//     changed pages and on unchanged ones, grouped and ungrouped side by
//     side: grouping gains ten to one on an unchanged page (one fetch and
//     one MD5 read either way) and less on a changed one, whose every
//     sentinel costs its table, its record and its history grouped or not.
//     It reports the two costs this implies, A once per check and B once
//     per sentinel: k sentinels cost k(A + B) ungrouped and A + kB grouped,
//     so the changed pages' ratio nears k only as B falls well below A/k.
//     The report splits every pass the same way (split.csv): how many
//     checks found their page changed, the share of the pass they took,
//     and the ratio on the unchanged and on the changed pages apart.
//   - How the ratio is measured. A grouped pass of 5,000 sentinels in
//     groups of 100 takes tens of milliseconds, its ungrouped baseline
//     seconds; on a shared machine one scheduling stall of a few hundred
//     milliseconds multiplies a short pass's time several times over, so
//     the fastest of three passes per run, each run timed apart, moved
//     the zipf g100 cells between ×20 and ×68. What is measured is not
//     changed: the same sentinels, installed once per run, every group
//     checked once per pass on its own checkpoint of the installed
//     repository. How it is timed is: the ungrouped and grouped runs of a
//     placement are installed first and their passes then alternate,
//     eval.sentinels.repeats times, each repetition in the order of the
//     last reversed (ABBA), so that both passes of a repetition run under
//     the same load; each repetition gives one ratio, ungrouped time over
//     grouped, and the report gives their median, which a stall in fewer
//     than half of the repetitions cannot move past the unstalled ones,
//     with the least and the greatest beside it so that the spread is
//     seen. The best-of-three it replaces divided two minima taken
//     minutes apart, so a busy spell over all of one run's passes went
//     straight into the ratio; now only a stall that hits one pass of
//     most pairs and not the other can move it.
//   - §7.2, Fig. 10–11: the cost per sentinel depends on the group size,
//     not on how many sentinels there are: install cost per 1,000 installs
//     is plotted up to the largest run.
//   - Fig. 12: I/O dominates ungrouped execution; bytes read from the
//     repository per check are reported.
//   - §3.2, Fig. 5: the bounding-box cases 8–10 that must fail are
//     recognised from the word alignment of consecutive copies and listed
//     apart.
//
// State: one temporary repository per run under OUT/tmp-*, removed at the
// end. Everything random (pages, placements, objects) comes from
// eval.sentinels.seed.
//
//	sum, err := sentineleval.Run(ctx, cfg.Eval.Sentinels, "out/sentinels", os.Stderr)
package sentineleval
