// Package notify delivers change notifications and loses none: it owns the
// outbox, webhook and e-mail delivery with retries and a dead-letter list,
// and the Atom feeds that readers subscribe to.
//
// State, repository bucket "notify" (repo/FORMAT.md):
//
//   - o due/id/target: one pending delivery (webhook or e-mail), JSON. It is
//     written by Enqueue into the caller's repository batch, the same batch
//     that records the detected change (package watch) or the index batch
//     that matched a search alert (package alert), so a change is either
//     recorded with its deliveries or not at all.
//   - x id/target: a dead delivery, after notify.max_attempts failures.
//   - f feed 0x00 at/id: an Atom entry; feeds are "watch:ID" and "user:NAME";
//     the newest notify.feed_entries per feed are kept.
//   - secret: the webhook signing key, made once (crypto/rand) and kept.
//
// Delivery is at least once. A delivery leaves the outbox only in a batch
// committed after the receiver accepted it; kill -9 between the two sends
// it again after restart, with the same idempotency key (the notification
// ID, in the Idempotency-Key header and the Message-ID), so a receiver can
// drop the repeat. A failed attempt is moved to now + backoff, doubling
// from notify.backoff_base up to notify.backoff_max (at most a week); after
// notify.max_attempts it moves to the dead-letter list, which Retry empties.
//
// Webhooks: POST of the notification as JSON, signed with HMAC-SHA256 over
// "timestamp.body" (headers Deltaq-Timestamp, Deltaq-Signature: sha256=hex),
// under notify.webhook_timeout; any 2xx is accepted. A redirect is not
// followed (it would turn the POST into a GET, or take the signed body to
// another host): a 3xx answer is a failed attempt that names where it led.
// E-mail: SMTP (RFC 5321) to notify.smtp.addr, a plain-text body with the
// changes-only diff, quoted-printable so that no line of it is too long
// for a relay; the Subject is the title cut to 200 characters (the body
// begins with the whole URL), its header lines folded under 78 bytes. An
// e-mail target is an address of at most 254 bytes (RFC 5321).
// A digest (package watch) carries each of its changes' diffs, oldest
// first (Notification.Changes), and the e-mail body, the Atom entry and
// the webhook JSON show every one under its time; their number is bounded
// where the digest collects them (watch.digest_kept), and those left out
// are counted (Notification.ChangesDropped, "changes_dropped").
//
// WebCQ (Liu, Tang, Buttler, Pu): §5 the notification service (e-mail and
// the personalized web bulletin, here the Atom feed per user and per
// watch). WebCQ's "no retry" delivery (§8.1) is replaced by the outbox and
// retries. The eager and periodic notification conditions are evaluated by
// package watch; this package delivers what they release.
//
// Bounds: one pass reads at most notify.batch deliveries, and Retry
// commits the dead letters it moves notify.batch at a time; memory does
// not grow with the outbox or the dead-letter list.
//
//	ob := notify.NewOutbox(db, cfg.Notify)
//	b := db.NewBatch(ctx)
//	err := ob.Enqueue(b, &notify.Notification{ID: id, URL: u, Targets: ts, Feeds: fs})
//	err = b.Commit()
//	svc := notify.NewService(ob, notify.Options{Clock: clock.Real{}})
//	go svc.Run(ctx) // delivers, retries, dead-letters
package notify
