// Package watch runs WebCQ sentinels: continual queries on web pages that
// say "tell me when this page, or this part of it, changes in this way".
// It owns installing sentinels, grouping them by page, checking a group's
// page, detecting and describing each change, and deciding (trigger and
// notification conditions) which changes become notifications; package
// notify delivers them.
//
// State, repository bucket "watch" (repo/FORMAT.md). Sentinels, tables,
// members and history entries, read and written for every sentinel on a
// changed page, are a format byte and fixed-order binary fields
// (codec.go); a value starting with '{' is the JSON an older repository
// holds, read as it was and written back binary when it next changes.
// Groups, keys and seq/ are JSON.
//
//   - s/ID: a Sentinel, its spec and its evaluation record (§4.3).
//   - g/KEY: a group: the page URL and its last check (§6.1.1). KEY is
//     the page URL (or "sentinel:ID" when ungrouped).
//   - t/KEY 0x00 TABLE: a constant table: its type and object and the
//     cached object; TABLE is a hash of the type and object.
//   - n/KEY 0x00 TABLE 0x00 ID: one member of the table and its wished
//     interval. An install writes its member key (and a new table), never
//     the group's other members, so its cost does not grow with the group.
//   - c/KEY: zstd(body) of the group's last copy; WebCQ keeps one (§4.1).
//   - m/KEY: the MD5 (hex) of that copy, alone, so that an unchanged page
//     costs a 32-byte read (§6.2).
//   - h/ID/N: the sentinel's N-th detected change; the newest
//     watch.history_kept are kept.
//   - f/ID: the sentinel's failed checks (failure.go), consecutive ones
//     with the same error as one run with a count and its first and last
//     times; the newest watch.history_kept runs are kept, apart from the
//     changes, so that a page failing for weeks pushes no change out.
//   - seq/: the last sentinel number given out.
//   - k/SHA256(key): an API key and its limits; fs/: the server's feed
//     secret; ft/SHA256(token): the key a feed token is of (feedtoken.go).
//
// In memory: nothing beyond one check's two parsed copies and their word
// splits (bounded by watch.max_body_bytes and watch.extract) and the
// planner's one entry per group.
//
// WebCQ (Liu, Tang, Buttler, Pu), seeds/003 and MONITORING-DIGEST §3:
//
//   - §2, Table 1: the sentinel types any, links, images, words, keywords
//     (appear/disappear), regex, phrase, table and list; start and stop
//     conditions (the default duration, one year, is watch.duration).
//   - §3.1–3.2 object extraction and evaluation: MD5 for any change; set
//     differences for links, images and words; case-insensitive AND of
//     keywords, firing when the flag flips; a string compare of the regex
//     matches; phrases located by the context bounding box (bbox.go):
//     watch.context_words (10) words each side, shrunk to the unchanged
//     part next to the object when fewer than half of a side's words
//     changed (Fig. 5 cases 5–7), failing when the box changed next to the
//     object (cases 8–10); phrases of at least watch.phrase_min_words (5).
//     Tables and lists are found by user-supplied identifying text, which
//     WebCQ lets take precedence over the box. A CSS selector can scope
//     any type: cascadia matches its compound selectors, and one walk of
//     the page links them, in time linear in the page (selector.go says
//     what a selector may hold, and why).
//   - §3.3 object cache update: each table's object, and a phrase's box,
//     follow the page after every check.
//   - §4.1–4.3: content-only differences (package diff) at word and line
//     granularity, computed once per page for the page-level types and per
//     table otherwise; the per-change record with its kind (insert,
//     delete, update; appeared/disappeared; lost/found). Its diff is cut
//     to watch.diff.max_bytes of text a view (diff.Result.Capped), which
//     counts the changed words left out: the history, the feed entries and
//     the notifications carry it as kept.
//   - §5 notification conditions: eager, or a periodic digest (mode
//     digest, one notification per period with every triggered change).
//     Trigger conditions: min_change (the fraction of the object changed,
//     WebCQ's "> 50 %" example), every_n (every n-th change).
//   - §6 grouping: one fetch, one MD5 check, and at most one copy load
//     and one page diff per group (made only when an unscoped any-change
//     table changed: the other types compare their cached objects; such
//     a group keeps its copy's text and links beside the copy, so the
//     load parses no HTML), then
//     each constant table once, then each member's trigger. What the tables derive from the page is made once for all
//     of them: the parse, the DOM their selectors run on, the split of the
//     page text into words (words, keywords, phrase and the page diff,
//     the lower-cased words taken from it word by word), the sorted link
//     set (links and the page diff), the body string (regex), the URL
//     resolver (links, images); the group's members are
//     read in one scan, and a table whose object did not change is not
//     rewritten. §6.2: the MD5 kept apart lets an unchanged page cost one
//     32-byte read and no parse.
//
// Scheduling is not a timer. A sentinel's interval ("every") is a wish.
// Under a crawler, package monitor/poll registers each group member as a
// WIC demand on the page, the frontier's monitoring class fetches the
// pages it picks under the one budget, and CheckFetched checks a group on
// the copy the crawler stored. Without a crawler (deltaq serve), Run
// checks what a Planner (schedule.go) picks and fetches for itself
// (HTTPFetcher, which follows crawler.limits.max_redirects redirects in a
// row and refuses a chain as monitor/poll does, internal/redirect):
// UrgencyPlanner scores Σ min(1, elapsed/every) per group, the same
// utility WIC gives the group's demands when the page is watched only,
// and picks among the groups due: those whose shortest interval has
// passed since their last check. A failed check (no answer, a status
// other than 200, a copy that is not HTML or text, ErrNotPage) records
// no change; it is counted, and the page
// is tried again after its interval doubled per failure in a row (at most
// the longer of the interval and a day). The failure is kept in the
// history of the group's sentinels (f/ID), where its user sees it beside
// the changes; it is no change, and notifies no one. A page text cut
// under a words, keywords or phrase sentinel (below) is kept there too.
//
// A page's text is read up to watch.extract.max_text_bytes. A words,
// keywords or phrase sentinel with no selector is refused on a page whose
// text is longer (TextCutError), and once its page grows past that its
// table is not compared and the check's result says so (TextCut): words
// past the cut would look removed. A selector reads the whole page.
//
// Everything one check records — objects, sentinel records, history, the
// new copy and its notifications (notify.Outbox.Enqueue) — is one
// repository batch: after kill -9 a check is either wholly recorded, with
// its notifications queued, or not at all and is redone.
//
//	e, err := watch.New(db, cfg.Watch, notify.NewOutbox(db, cfg.Notify), watch.Options{Fetcher: f})
//	s, err := e.Install(ctx, watch.Spec{URL: u, Type: watch.Phrase, Object: "opens on March 3 at the main hall", Every: time.Hour})
//	p := watch.NewUrgencyPlanner(groups)
//	for _, key := range p.Next(time.Now(), budget) { res, err := e.Check(ctx, key) }
package watch
