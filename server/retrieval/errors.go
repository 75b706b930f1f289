package retrieval

import "fmt"

func errorf(format string, args ...any) error {
	return fmt.Errorf("retrieval: "+format, args...)
}
