// legacy-discovery: a client-go program that discovers group by group, as client-go did before
// aggregated discovery (and as clients of 1.26–1.29 fall back to): ServerGroupsAndResources with
// UseLegacyDiscovery. Prints one line per resource, "GROUP/VERSION RESOURCE", and exits 1 with the
// error client-go returns (e.g. "unable to retrieve the complete list of server APIs") when any
// group-version could not be read. Built by scripts/kube/build.mjs; used by test/kube/every-client.test.ts.
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig file")
	flag.Parse()
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kubeconfig: %v\n", err)
		os.Exit(2)
	}
	client, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		fmt.Fprintf(os.Stderr, "discovery client: %v\n", err)
		os.Exit(2)
	}
	// Aggregated discovery off: /apis as an APIGroupList, then /apis/G/V one by one.
	client.UseLegacyDiscovery = true
	_, lists, err := client.ServerGroupsAndResources()
	var lines []string
	for _, list := range lists {
		for _, r := range list.APIResources {
			lines = append(lines, list.GroupVersion+" "+r.Name)
		}
	}
	sort.Strings(lines)
	for _, line := range lines {
		fmt.Println(line)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%v\n", err)
		os.Exit(1)
	}
}
