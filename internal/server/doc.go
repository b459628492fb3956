// Package server is deltaq's HTTP front: the search API and page, the page
// report API, OpenSearch, health and metrics. It owns routes, input limits
// and rendering; what is searched, ranked and advertised comes from the
// interfaces it declares (Searcher, Pages), which the binary wires to the
// index, ranking and ads packages.
//
// Routes (method patterns):
//
//	GET /                    HTML search page (templates/, no external assets)
//	GET /api/v1/search       JSON results: ?q=&page=&size=
//	GET /api/v1/page         JSON: what the repository knows of ?url=
//	GET /opensearch.xml      OpenSearch description
//	GET /healthz             liveness
//	GET /metrics             Prometheus (search latency, plus what the binary registers)
//
// Bad input answers 400 with {"error": ..., "field": ..., "limit": ...}
// naming the parameter and its limit; every request runs under
// server.search_timeout.
//
//	h := server.New(cfg.Server, server.Deps{Search: s, Pages: db, Registry: reg})
//	err := httpserver.Run(ctx, cfg.Server.Listen, cfg.Server.HTTP, h, httpserver.Options{})
package server
