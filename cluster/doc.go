// Package cluster spreads one crawl over several nodes by host, on NATS
// JetStream: each host belongs to one of S shards, each shard to one node
// at a time, so a host's politeness holds cluster-wide and each node keeps
// its own repository (and index) for its own hosts. A single-machine crawl
// never touches this package.
//
// What it owns, all in JetStream (no state of its own on disk):
//
//	ShardOf        host → shard, jump consistent hashing of the host name;
//	               the same on every node, with nothing shared.
//	deltaq_shards  key-value bucket, "s<N>" → owning node: the shard
//	               leases, expiring after cluster lease_ttl unless renewed
//	               (every TTL/3); a dead node's leases expire and the
//	               others take them, each aiming at ⌈S / nodes alive⌉.
//	deltaq_nodes   key-value bucket, node → heartbeat, same TTL: how many
//	               nodes are alive.
//	DELTAQ_LINKS   stream, subjects deltaq.links.<N>, work-queue retention:
//	               URLs a node found on its pages for hosts of other shards
//	               (crawler.Handoff), one message each with the URL as
//	               message ID, so JetStream drops copies within the dedup
//	               window and the owner's repository drops later ones. A
//	               durable consumer per shard, shard-<N>, is read by the
//	               shard's owner, which admits the URLs (crawler.Admit) and
//	               acknowledges them after the commit.
//
// In memory: at most 4,096 handoffs queued for publishing and 4,096
// received and not yet committed (the crawler's writer waits beyond).
//
// Bounds of what is built: queued work does not move with a shard. A job
// whose lease lapsed is put back for one lease tick (crawler RouteWait),
// not fetched, so no host is fetched by two nodes; but a dead node's
// queue stays in its repository, and its hosts are crawled again by the
// new owner from the links that reach them. Search across nodes, the
// global budget and `deltaq crawl --cluster` are not built.
//
//	m, err := cluster.Join(ctx, cfg, cluster.Options{Logger: logger})
//	c, err := crawler.New(cfg.Crawler, db, crawler.Options{Route: m.Route, Handoff: m.Handoff, RouteWait: m.RouteWait()})
//	f, err := frontier.New(ctx, db, cfg.Frontier, c.Gate(), policy, frontier.Options{})
//	go m.Run(ctx, c, f)     // leases, handoffs out and in
//	_, err = c.Run(ctx, f, crawler.RunOptions{})
package cluster
