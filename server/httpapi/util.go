package httpapi

import "strconv"

// bodyLimit renders a byte count in the form Echo's BodyLimit expects.
func bodyLimit(n int64) string { return strconv.FormatInt(n, 10) + "B" }
