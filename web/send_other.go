//go:build !(js && wasm)

package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
)

// send makes one request with net/http outside the browser (the wasm
// build uses fetch directly, send_js.go) and returns the answer's status
// and body.
func send(ctx context.Context, method, url string, header [][2]string, body []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, err
	}
	for _, h := range header {
		req.Header.Set(h[0], h[1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxAnswerBytes+1))
	if err != nil {
		return 0, nil, err
	}
	if len(data) > maxAnswerBytes {
		return 0, nil, fmt.Errorf("answer over the %d byte limit", maxAnswerBytes)
	}
	return res.StatusCode, data, nil
}
