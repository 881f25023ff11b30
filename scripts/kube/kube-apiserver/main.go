// The kube-apiserver command of the k8s.io/kubernetes release this module requires.
// k8s.io/kubernetes cannot be `go install`ed (its go.mod points the k8s.io/* staging
// modules at local folders), so scripts/kube/build.mjs writes a go.mod beside this
// file that requires the release and pins each staging module to its published v0.N.x.
package main

import (
	"os"
	"strconv"
	"time"
	_ "time/tzdata"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
	controlplane "k8s.io/kubernetes/pkg/controlplane/apiserver"
)

func main() {
	// The identity lease lasts an hour in a real cluster; Kubernetes exposes these variables so its
	// own integration tests can shorten them, and Peerscope's tests do the same to see a departed
	// server's lease expire within a test run. Unset, the release's defaults apply.
	if s := os.Getenv("PEERSCOPE_IDENTITY_LEASE_SECONDS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 3 {
			controlplane.IdentityLeaseDurationSeconds = n
			controlplane.IdentityLeaseRenewIntervalPeriod = time.Duration(n) * time.Second / 3
			controlplane.IdentityLeaseGCPeriod = time.Duration(n) * 6 * time.Second
		}
	}
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
