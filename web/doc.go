// Package web is deltaq's HTTP front: it owns every route the product
// serves. It decides input limits, status codes, error bodies and
// rendering; what is searched, ranked and advertised comes from the index,
// ranking and ads packages, which know nothing of HTTP.
//
// Routes (method patterns):
//
//	GET /                    HTML search page (templates/, no external assets)
//	GET /api/v1/search       JSON results: ?q=&page=&size=&fields= (ResultFields: a partial response)
//	GET /api/v1/page         JSON page report of ?url= (PageReport) *
//	GET /opensearch.xml      OpenSearch description
//	GET /healthz             liveness: "ok", or 503 once a search found the index damaged (IndexHealth)
//	GET /metrics             Prometheus (search latency, plus what the binary registers) *
//	GET /explain             HTML page report of ?url=: fetches, ΔQ_A, δQ_A, priority, why *
//	GET /r                   signed result click (ranking.RedirectPath): awareness, then 302 (thesis §5.4)
//	GET /c                   signed ad click (ads.ClickPath): charge the bid, then 302 (ch. 6)
//	    /api/v1/ads/         the advertiser API (adsapi.go), behind a bearer key
//	GET /api/v1/relations                 the relations: records, changes found, last sync
//	GET /api/v1/relations/{name}/rows     a relation's records, stalest (w·F̂) first: ?stale_gt=&limit=
//	GET /api/v1/relations/{name}/changes  field-level changes ("price 19.99 → 17.49"): ?since=&limit=
//	                         (relationsapi.go; package relation, Yang et al. SIGMOD 2010)
//	GET /api/v1/feeds, /api/v1/feeds/{id}/items, /api/v1/river, /feeds/river.atom
//	                         the feed aggregator (feedsapi.go; package feeds, Sia & Cho)
//	POST /api/v1/feeds, DELETE /api/v1/feeds/{id}  subscribe, change, unsubscribe **
//	    /api/v1/watches, /api/v1/alerts  sentinels and search alerts (watchapi.go), behind a bearer key
//	    /watches             their HTML pages (watchhtml.go): list, add, history, diff views,
//	                         remove; /watches/alerts. The key is kept in a SameSite=Strict
//	                         cookie scoped to /watches; forms are CSRF-checked
//
// The routes marked * are the operator's: with server.admin.listen set
// they move to the admin listener (Server.Admin, which serves every route
// and links each result to its explain view), and the public listener no
// longer serves them. The routes marked ** change the whole server's
// state with no key to speak for them: only the admin listener serves
// them, and without one they are not served. PageReport is also what
// `deltaq page explain` prints (WriteText, or JSON).
//
// Engine (engine.go) is the Searcher the binary wires: best-match
// retrieval from the index (BM25 with a coordination rule and RM3
// feedback, index/doc.go), ranking's order with randomized promotion
// (§5.5), ads for the query phrase (ch. 6), snippets; it parses the query
// once for retrieval and snippets (ranking.Searcher.Order). The user id
// cookie (user.go) seeds a user's promotion shuffle and counts a monitored
// user's clicks once.
//
// Errors of the JSON API (errors.go) follow one shape, with a stable code
// a client can branch on:
//
//	{"error": {"code": "bad_parameter", "field": "size", "value": "500",
//	           "limit": "in [1, 100]", "message": "500 is outside [1, 100]"}}
//
// Unknown /api/ paths answer 404 and known ones asked with another method
// 405 (with Allow), both in that shape; a query parameter the route does
// not take answers 400 naming the ones it does (params.go), except on the
// Atom feeds, to which feed readers add their own. Outside /api/ a method
// a path does not take answers 405 (with Allow) on the search page, which
// shows the error, except on the click links (/r, /c), whose errors are
// all JSON; a path that does not exist answers 404 on the search page.
// Every search runs under server.search_timeout.
//
// State: none of its own beyond the request; the search latency histogram
// lives in the registry it is given.
//
//	e := web.NewEngine(ix, searcher, adStore, web.EngineOptions{Limits: cfg.Index.Limits()})
//	h, err := web.New(cfg.Server, web.Deps{Search: e, Pages: db, Signer: signer, Clicks: rank, Ads: adStore})
//	err = httpserver.Run(ctx, cfg.Server.Listen, cfg.Server.HTTP, h, httpserver.Options{})
//	if admin := h.Admin(); admin != nil { // server.admin.listen set
//		err = httpserver.Run(ctx, cfg.Server.Admin.Listen, cfg.Server.HTTP, admin, httpserver.Options{})
//	}
package web
