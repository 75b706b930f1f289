package httpapi

import "net/http"

// HTTPServerForTest is the net/http server Run would serve, for tests
// that need its timeouts.
func (s *Server) HTTPServerForTest() *http.Server { return s.httpServer() }
