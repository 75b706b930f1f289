package api

import "boolpool/server/vocab"

// The task-leasing policy of a judging client: the web judge pages and the
// load generator (server/devtools/loadgen) both follow it, so the load
// bench measures the requests the real client makes.
//
// A client keeps a small batch of leased tasks (the one on screen first)
// and asks the queue endpoint for more only at a low-water mark, for a
// batch up to a high-water mark: one fetch per QueueHighWater-QueueLowWater
// judgments instead of one per judgment, while two tasks are still in hand
// when it asks, so "submit and next" never waits for the network. The
// server renews every live lease a fetch returns (current leases first),
// and a task leased but never judged returns to the pool when its lease
// runs out.
const (
	// QueueLowWater: refill when this many tasks or fewer are left
	// (counting the one on screen).
	QueueLowWater = 2
	// QueueHighWater is how many tasks a refill asks to hold. A crowd
	// participant gets at most CrowdLeaseCap (the server lowers N).
	QueueHighWater = 6
	// QueueMax is the server's limit on one request's N.
	QueueMax = vocab.MaxQueue
)

// QueueRefill reports whether a client holding held tasks (the one on
// screen included) should ask for more.
func QueueRefill(held int) bool { return held <= QueueLowWater }

// QueueAsk is the N of a queue request from a client with pending
// judgments made but not yet acknowledged: the server still counts their
// items as leased and returns them (the client drops them), so they are
// asked for on top of the batch, within QueueMax.
func QueueAsk(pending int) int { return min(QueueHighWater+max(pending, 0), QueueMax) }
