package finding

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// cweCompliance maps a CWE number to its compliance tags, sorted. It is
// read-only: ComplianceTags returns copies.
var cweCompliance = map[int][]string{
	2:    {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC7.1"},
	11:   {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC7.1"},
	13:   {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC7.1"},
	15:   {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC7.1"},
	16:   {"OWASP-A05", "PCI-DSS-2.2.1", "SOC2-CC7.1"},
	20:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	22:   {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	23:   {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	35:   {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	59:   {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	73:   {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	74:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	75:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	77:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	78:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	79:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	80:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	83:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	87:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	88:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	89:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	90:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	91:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	93:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	94:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	95:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	96:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	97:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	98:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	99:   {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	100:  {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	113:  {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	116:  {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	117:  {"OWASP-A09", "PCI-DSS-10.3.2", "SOC2-CC7.2"},
	119:  {"PCI-DSS-6.2.4", "SOC2-CC8.1"}, // outside OWASP's 2021 mapping: no category fits
	120:  {"PCI-DSS-6.2.4", "SOC2-CC8.1"}, // outside OWASP's 2021 mapping: no category fits
	125:  {"PCI-DSS-6.2.4", "SOC2-CC8.1"}, // outside OWASP's 2021 mapping: no category fits
	138:  {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	183:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	184:  {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	190:  {"PCI-DSS-6.2.4", "SOC2-CC8.1"}, // outside OWASP's 2021 mapping: no category fits
	200:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	201:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	209:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	213:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	215:  {"OWASP-A05", "PCI-DSS-6.2.4", "SOC2-CC6.1"}, // outside OWASP's 2021 mapping: closest category
	219:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	223:  {"OWASP-A09", "PCI-DSS-10.2.1", "SOC2-CC7.2"},
	235:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	242:  {"PCI-DSS-6.2.4", "SOC2-CC8.1"},              // outside OWASP's 2021 mapping: no category fits
	250:  {"OWASP-A01", "PCI-DSS-7.2.5", "SOC2-CC6.3"}, // outside OWASP's 2021 mapping: closest category
	255:  {"OWASP-A07", "PCI-DSS-8.3.1", "SOC2-CC6.1"},
	256:  {"OWASP-A04", "PCI-DSS-8.3.2", "SOC2-CC6.1"},
	257:  {"OWASP-A04", "PCI-DSS-8.3.2", "SOC2-CC6.1"},
	259:  {"OWASP-A07", "PCI-DSS-8.6.2", "SOC2-CC6.1"},
	260:  {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC7.1"},
	261:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	262:  {"OWASP-A07", "PCI-DSS-8.3.9", "SOC2-CC6.1"}, // outside OWASP's 2021 mapping: closest category
	263:  {"OWASP-A07", "PCI-DSS-8.3.9", "SOC2-CC6.1"}, // outside OWASP's 2021 mapping: closest category
	264:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	266:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	269:  {"OWASP-A04", "PCI-DSS-7.2.1", "PCI-DSS-7.2.5", "SOC2-CC6.3"},
	275:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	276:  {"OWASP-A01", "PCI-DSS-7.2.1", "SOC2-CC6.1", "SOC2-CC6.3"},
	280:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	284:  {"OWASP-A01", "PCI-DSS-6.2.4", "PCI-DSS-7.2.1", "SOC2-CC6.1", "SOC2-CC6.3"},
	285:  {"OWASP-A01", "PCI-DSS-6.2.4", "PCI-DSS-7.2.1", "SOC2-CC6.1", "SOC2-CC6.3"},
	287:  {"OWASP-A07", "PCI-DSS-8.3.1", "SOC2-CC6.1"},
	288:  {"OWASP-A07", "PCI-DSS-8.3.1", "SOC2-CC6.1"},
	290:  {"OWASP-A07", "PCI-DSS-8.3.1", "SOC2-CC6.1"},
	294:  {"OWASP-A07", "PCI-DSS-8.3.1", "SOC2-CC6.1"},
	295:  {"OWASP-A07", "PCI-DSS-4.2.1", "SOC2-CC6.7"},
	296:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	297:  {"OWASP-A07", "PCI-DSS-4.2.1", "SOC2-CC6.7"},
	300:  {"OWASP-A07", "PCI-DSS-8.3.1", "SOC2-CC6.1"},
	302:  {"OWASP-A07", "PCI-DSS-8.3.1", "SOC2-CC6.1"},
	304:  {"OWASP-A07", "PCI-DSS-8.3.1", "SOC2-CC6.1"},
	306:  {"OWASP-A07", "PCI-DSS-8.3.1", "SOC2-CC6.1"},
	307:  {"OWASP-A07", "PCI-DSS-8.3.4", "SOC2-CC6.1"},
	310:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	311:  {"OWASP-A04", "PCI-DSS-3.5.1", "PCI-DSS-4.2.1", "SOC2-CC6.1", "SOC2-CC6.7"},
	312:  {"OWASP-A04", "PCI-DSS-3.5.1", "SOC2-CC6.1"},
	313:  {"OWASP-A04", "PCI-DSS-3.5.1", "SOC2-CC6.1"},
	315:  {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC7.1"},
	316:  {"OWASP-A04", "PCI-DSS-3.5.1", "SOC2-CC6.1"},
	319:  {"OWASP-A02", "PCI-DSS-4.2.1", "SOC2-CC6.7"},
	321:  {"OWASP-A02", "PCI-DSS-3.6.1", "SOC2-CC6.1"},
	322:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	323:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	324:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	325:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	326:  {"OWASP-A02", "PCI-DSS-4.2.1", "PCI-DSS-6.2.4", "SOC2-CC6.1", "SOC2-CC6.7"},
	327:  {"OWASP-A02", "PCI-DSS-4.2.1", "PCI-DSS-6.2.4", "SOC2-CC6.1", "SOC2-CC6.7"},
	328:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	329:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	330:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	331:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	335:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	336:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	337:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	338:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	340:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	345:  {"OWASP-A08", "PCI-DSS-6.2.4", "SOC2-CC6.8"},
	346:  {"OWASP-A07", "PCI-DSS-6.2.4", "SOC2-CC6.6"},
	347:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	352:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	353:  {"OWASP-A08", "PCI-DSS-6.2.4", "SOC2-CC6.8"},
	359:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	362:  {"PCI-DSS-6.2.4", "SOC2-CC8.1"},              // outside OWASP's 2021 mapping: no category fits
	367:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"}, // outside OWASP's 2021 mapping: closest category
	377:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	384:  {"OWASP-A07", "PCI-DSS-8.3.1", "SOC2-CC6.1"},
	390:  {"PCI-DSS-6.2.4", "SOC2-CC8.1"},              // outside OWASP's 2021 mapping: no category fits
	391:  {"PCI-DSS-6.2.4", "SOC2-CC8.1"},              // outside OWASP's 2021 mapping: no category fits
	400:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"}, // outside OWASP's 2021 mapping: closest category
	402:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	416:  {"PCI-DSS-6.2.4", "SOC2-CC8.1"}, // outside OWASP's 2021 mapping: no category fits
	419:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	425:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	426:  {"OWASP-A08", "PCI-DSS-6.2.4", "SOC2-CC6.8"},
	430:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	434:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	441:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	444:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	451:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	470:  {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	471:  {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	472:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	476:  {"PCI-DSS-6.2.4", "SOC2-CC8.1"},              // outside OWASP's 2021 mapping: no category fits
	489:  {"OWASP-A05", "PCI-DSS-2.2.4", "SOC2-CC7.1"}, // outside OWASP's 2021 mapping: closest category
	494:  {"OWASP-A08", "PCI-DSS-6.2.4", "SOC2-CC6.8"},
	497:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	501:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	502:  {"OWASP-A08", "PCI-DSS-6.2.4", "SOC2-CC6.8"},
	520:  {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC7.1"},
	521:  {"OWASP-A07", "PCI-DSS-8.3.6", "SOC2-CC6.1"},
	522:  {"OWASP-A04", "PCI-DSS-8.3.2", "SOC2-CC6.1"},
	523:  {"OWASP-A02", "PCI-DSS-4.2.1", "PCI-DSS-8.3.2", "SOC2-CC6.7"},
	525:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	526:  {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC7.1"},
	532:  {"OWASP-A09", "PCI-DSS-3.5.1", "SOC2-CC6.1"},
	537:  {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC7.1"},
	538:  {"OWASP-A01", "PCI-DSS-7.2.1", "SOC2-CC6.1"},
	539:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	540:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	541:  {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC7.1"},
	547:  {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC7.1"},
	548:  {"OWASP-A01", "PCI-DSS-2.2.6", "SOC2-CC6.1"},
	552:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	561:  {"PCI-DSS-6.2.3", "SOC2-CC8.1"}, // outside OWASP's 2021 mapping: no category fits
	563:  {"PCI-DSS-6.2.3", "SOC2-CC8.1"}, // outside OWASP's 2021 mapping: no category fits
	564:  {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	565:  {"OWASP-A08", "PCI-DSS-6.2.4", "SOC2-CC6.8"},
	566:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	579:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	598:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	601:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	602:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	605:  {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC6.6"}, // outside OWASP's 2021 mapping: closest category
	610:  {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	611:  {"OWASP-A05", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	613:  {"OWASP-A07", "PCI-DSS-8.3.1", "SOC2-CC6.1"},
	614:  {"OWASP-A05", "PCI-DSS-2.2.6", "PCI-DSS-4.2.1", "SOC2-CC6.7"},
	620:  {"OWASP-A07", "PCI-DSS-8.3.1", "SOC2-CC6.1"},
	639:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	640:  {"OWASP-A07", "PCI-DSS-8.3.1", "SOC2-CC6.1"},
	642:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	643:  {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	644:  {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	646:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	650:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	651:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	652:  {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	653:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	656:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	657:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	668:  {"OWASP-A01", "PCI-DSS-7.2.1", "SOC2-CC6.1", "SOC2-CC6.6"},
	676:  {"PCI-DSS-6.2.4", "SOC2-CC8.1"},              // outside OWASP's 2021 mapping: no category fits
	693:  {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC7.1"}, // outside OWASP's 2021 mapping: closest category
	703:  {"PCI-DSS-6.2.4", "SOC2-CC8.1"},              // outside OWASP's 2021 mapping: no category fits
	706:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	720:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	732:  {"OWASP-A01", "PCI-DSS-7.2.1", "SOC2-CC6.1", "SOC2-CC6.3"}, // outside OWASP's 2021 mapping: closest category
	749:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},               // outside OWASP's 2021 mapping: closest category
	754:  {"PCI-DSS-6.2.4", "SOC2-CC8.1"},                            // outside OWASP's 2021 mapping: no category fits
	755:  {"PCI-DSS-6.2.4", "SOC2-CC8.1"},                            // outside OWASP's 2021 mapping: no category fits
	756:  {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC7.1"},
	757:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	759:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	760:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	770:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"}, // outside OWASP's 2021 mapping: closest category
	776:  {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC7.1"},
	778:  {"OWASP-A09", "PCI-DSS-10.2.1", "SOC2-CC7.2"},
	780:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	784:  {"OWASP-A08", "PCI-DSS-6.2.4", "SOC2-CC6.8"},
	787:  {"PCI-DSS-6.2.4", "SOC2-CC8.1"}, // outside OWASP's 2021 mapping: no category fits
	798:  {"OWASP-A07", "PCI-DSS-8.6.2", "SOC2-CC6.1"},
	799:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	807:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	818:  {"OWASP-A02", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	829:  {"OWASP-A08", "PCI-DSS-6.4.3", "SOC2-CC6.8"},
	830:  {"OWASP-A08", "PCI-DSS-6.2.4", "SOC2-CC6.8"},
	840:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	841:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	862:  {"OWASP-A01", "PCI-DSS-6.2.4", "PCI-DSS-7.2.1", "SOC2-CC6.1", "SOC2-CC6.3"},
	863:  {"OWASP-A01", "PCI-DSS-6.2.4", "PCI-DSS-7.2.1", "SOC2-CC6.1", "SOC2-CC6.3"},
	913:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	915:  {"OWASP-A08", "PCI-DSS-6.2.4", "SOC2-CC6.8"},
	916:  {"OWASP-A02", "PCI-DSS-8.3.2", "SOC2-CC6.1"},
	917:  {"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	918:  {"OWASP-A10", "PCI-DSS-6.2.4", "SOC2-CC6.6"},
	922:  {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	923:  {"OWASP-A05", "PCI-DSS-1.2.5", "SOC2-CC6.6"}, // outside OWASP's 2021 mapping: closest category
	927:  {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	937:  {"OWASP-A06", "PCI-DSS-6.3.1", "PCI-DSS-6.3.3", "SOC2-CC7.1"},
	940:  {"OWASP-A07", "PCI-DSS-8.3.1", "SOC2-CC6.1"},
	942:  {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC6.6"},
	1004: {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC7.1"},
	1021: {"OWASP-A04", "PCI-DSS-2.2.6", "PCI-DSS-6.2.4", "SOC2-CC7.1"},
	1032: {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC7.1"},
	1035: {"OWASP-A06", "PCI-DSS-6.3.1", "PCI-DSS-6.3.3", "SOC2-CC7.1"},
	1068: {"OWASP-A04", "PCI-DSS-6.2.3", "SOC2-CC8.1"}, // outside OWASP's 2021 mapping: closest category
	1104: {"OWASP-A06", "PCI-DSS-6.3.1", "PCI-DSS-6.3.3", "SOC2-CC7.1"},
	1173: {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},
	1174: {"OWASP-A05", "PCI-DSS-2.2.6", "SOC2-CC7.1"},
	1188: {"OWASP-A05", "PCI-DSS-2.2.1", "SOC2-CC7.1"}, // outside OWASP's 2021 mapping: closest category
	1216: {"OWASP-A07", "PCI-DSS-8.3.1", "SOC2-CC6.1"},
	1275: {"OWASP-A01", "PCI-DSS-6.2.4", "SOC2-CC6.1"},
	1321: {"OWASP-A08", "PCI-DSS-6.2.4", "SOC2-CC6.8"},                  // outside OWASP's 2021 mapping: closest category
	1327: {"OWASP-A05", "PCI-DSS-1.2.5", "PCI-DSS-2.2.4", "SOC2-CC6.6"}, // outside OWASP's 2021 mapping: closest category
	1333: {"OWASP-A04", "PCI-DSS-6.2.4", "SOC2-CC8.1"},                  // outside OWASP's 2021 mapping: closest category
	1390: {"OWASP-A07", "PCI-DSS-8.3.1", "SOC2-CC6.1"},                  // outside OWASP's 2021 mapping: closest category
	1391: {"OWASP-A07", "PCI-DSS-2.2.2", "PCI-DSS-8.3.6", "SOC2-CC6.1"}, // outside OWASP's 2021 mapping: closest category
	1392: {"OWASP-A07", "PCI-DSS-2.2.2", "SOC2-CC6.1"},                  // outside OWASP's 2021 mapping: closest category
	1393: {"OWASP-A07", "PCI-DSS-2.2.2", "SOC2-CC6.1"},                  // outside OWASP's 2021 mapping: closest category
	1394: {"OWASP-A02", "PCI-DSS-2.2.2", "PCI-DSS-3.6.1", "SOC2-CC6.1"}, // outside OWASP's 2021 mapping: closest category
	1395: {"OWASP-A06", "PCI-DSS-6.3.1", "PCI-DSS-6.3.3", "SOC2-CC7.1"}, // outside OWASP's 2021 mapping: closest category
}

// complianceKeyword stands for a weakness named in a rule id or title.
// It matches when a token equals one of exact, a token starts with one of
// prefixes or two adjacent tokens equal one of pairs, unless some token
// equals one of vetoes.
type complianceKeyword struct {
	exact    []string
	prefixes []string
	pairs    [][2]string
	vetoes   []string
	cwe      int      // use this CWE's tags, or
	tags     []string // these tags when no CWE stands for the concept
}

var complianceKeywords = []complianceKeyword{
	{
		prefixes: []string{"secret", "password", "credential", "hardcoded"},
		exact:    []string{"passwd", "apikey", "pwd"},
		pairs:    [][2]string{{"api", "key"}, {"private", "key"}, {"access", "key"}},
		cwe:      798,
	},
	{prefixes: []string{"token"}, vetoes: []string{"csrf", "xsrf"}, cwe: 798},
	{prefixes: []string{"sql"}, cwe: 89},
	{prefixes: []string{"xss"}, cwe: 79},
	{exact: []string{"csrf", "xsrf"}, cwe: 352},
	{exact: []string{"ssrf"}, cwe: 918},
	{exact: []string{"xxe"}, cwe: 611},
	{prefixes: []string{"traversal"}, cwe: 22},
	{prefixes: []string{"deserializ", "deserialis"}, cwe: 502},
	{prefixes: []string{"injection"}, cwe: 74},
	{prefixes: []string{"tls", "ssl", "plaintext", "cleartext", "unencrypted"}, exact: []string{"hsts", "telnet", "ftp"}, cwe: 319},
	{prefixes: []string{"header"}, exact: []string{"csp"}, cwe: 693},
	{prefixes: []string{"cookie"}, cwe: 614},
	{exact: []string{"cors"}, cwe: 942},
	{prefixes: []string{"debug"}, cwe: 489},
	{prefixes: []string{"vulnerab", "outdated"}, exact: []string{"cve", "ghsa", "pysec", "rustsec"}, cwe: 1104},
	{exact: []string{"port", "ports"}, cwe: 1327},
	{prefixes: []string{"permission", "writable", "chmod"}, cwe: 732},
	{exact: []string{"root", "privileged", "sudo"}, cwe: 250},
	// License findings are supply-chain governance, not an OWASP weakness:
	// the component inventory (PCI DSS 6.3.2) and third-party risk (SOC 2
	// CC9.2) are where auditors look for them.
	{prefixes: []string{"license", "licence"}, tags: []string{"PCI-DSS-6.3.2", "SOC2-CC9.2"}},
	// SSH findings are host-hardening and remote-administration issues.
	{prefixes: []string{"ssh"}, tags: []string{"OWASP-A05", "PCI-DSS-2.2.7", "SOC2-CC6.6"}},
}

// complianceScanTypeCWE is the last resort for a finding nothing else tags.
var complianceScanTypeCWE = map[string]int{
	"dependency": 1104,
	"network":    1327,
}

// ComplianceTags returns f's compliance tags: sorted, free of duplicates,
// never nil and never sharing memory with another caller's. They name the
// controls of three frameworks that the weakness f reports bears on:
//
//   - OWASP Top 10 2021: OWASP-A01 .. OWASP-A10.
//   - PCI DSS 4.0 (numbering unchanged in 4.0.1): PCI-DSS-<requirement>, e.g.
//     PCI-DSS-6.2.4. SPEC.md's example "PCI-DSS-6.5.1" is 3.2.1 numbering;
//     scand tags the current standard only.
//   - SOC 2, AICPA Trust Services Criteria 2017 (points of focus revised
//     2022), common criteria: SOC2-CC<n.n>, e.g. SOC2-CC7.1.
//
// Tags are derived, in this order of authority, from:
//
//  0. A finding whose rule_id is a published advisory id (CVE-, GHSA-, GO-,
//     PYSEC-, RUSTSEC-, ...) is a vulnerable component: CWE-1104's tags
//     (OWASP-A06, PCI-DSS-6.3.1/6.3.3) plus its CWE's tags when it has one.
//  1. The CWE. cweCompliance lists every CWE of OWASP's published 2021
//     mapping under its category, the CWE Top 25 (2023 and 2024) and every
//     CWE scand's scanners emit. CWEs outside OWASP's mapping carry the
//     closest category, marked in the table; memory-safety, concurrency,
//     error-handling and code-quality weaknesses carry no OWASP tag because
//     no 2021 category describes them. PCI DSS and SOC 2 tags follow the
//     category (code weaknesses: PCI-DSS-6.2.4 software engineering
//     techniques, SOC2-CC8.1 change management; misconfiguration:
//     PCI-DSS-2.2.6, SOC2-CC7.1; vulnerable components: PCI-DSS-6.3.1 and
//     6.3.3, SOC2-CC7.1; ...) with a specific requirement where one exists
//     (hard-coded passwords: PCI-DSS-8.6.2; transport: PCI-DSS-4.2.1 and
//     SOC2-CC6.7; lockout: PCI-DSS-8.3.4; ...).
//  2. When the finding has no CWE, or one the table does not know: keywords
//     in the scanner name, rule_id and title (whole words, word prefixes
//     such as "vulnerab", or word pairs such as "api key"), each standing
//     for a representative CWE (e.g. "secret", "password", "token" →
//     CWE-798; "sql" → CWE-89) or for a fixed tag set (licenses, SSH). The tags of every matching keyword are
//     combined. Descriptions are not read: they are long and mention
//     weaknesses they are not about.
//  3. When no keyword matches: the scan type (dependency → CWE-1104,
//     network → CWE-1327).
//
// A finding with none of these has no tags. A tag is a pointer for auditors,
// not an assessment: a control with no finding (see Coverage) means only
// that scand's scanners found nothing against it.
func ComplianceTags(f Finding) []string {
	if isAdvisoryID(f.RuleID) {
		// A published advisory against a component is a vulnerable
		// component (CWE-1104) whatever its weakness; the weakness's own
		// category is added when the advisory names a CWE. Its title is
		// not read for keywords: it describes the package's bug ("crafted
		// Accept-Language header"), not a weakness of the scanned tree.
		tags := slices.Clone(cweCompliance[1104])
		if n, ok := cweNumber(f.CWE); ok {
			tags = append(tags, cweCompliance[n]...)
		}
		slices.Sort(tags)
		return slices.Compact(tags)
	}
	if n, ok := cweNumber(f.CWE); ok {
		if tags, known := cweCompliance[n]; known {
			return slices.Clone(tags)
		}
	}
	var tokenBuf [48]string
	tokens := appendWordTokens(tokenBuf[:0], f.Scanner)
	tokens = appendWordTokens(tokens, f.RuleID)
	tokens = appendWordTokens(tokens, f.Title)
	var tags []string
	for i := range complianceKeywords {
		k := &complianceKeywords[i]
		if !k.matches(tokens) {
			continue
		}
		if k.cwe != 0 {
			tags = append(tags, cweCompliance[k.cwe]...)
		} else {
			tags = append(tags, k.tags...)
		}
	}
	if len(tags) == 0 {
		if n, ok := complianceScanTypeCWE[f.ScanType]; ok {
			tags = append(tags, cweCompliance[n]...)
		}
	}
	if len(tags) == 0 {
		return []string{}
	}
	slices.Sort(tags)
	return slices.Compact(tags)
}

// advisoryPrefixes name the public vulnerability databases whose ids
// dependency scanners use as rule ids.
var advisoryPrefixes = []string{"CVE-", "GHSA-", "GO-", "PYSEC-", "RUSTSEC-", "OSV-", "GMS-", "DSA-", "USN-", "ALSA-", "RHSA-", "NPM-"}

// isAdvisoryID reports whether a rule id is a published advisory id such
// as CVE-2021-44906, GHSA-xvch-5gv4-984h or GO-2022-1059: a prefix above
// followed by a year-or-id part that contains a digit.
func isAdvisoryID(ruleID string) bool {
	for _, p := range advisoryPrefixes {
		if len(ruleID) > len(p) && strings.EqualFold(ruleID[:len(p)], p) && strings.ContainsAny(ruleID[len(p):], "0123456789") {
			return true
		}
	}
	return false
}

// appendWordTokens appends the words of s (runs of letters and digits) as
// substrings of s, case kept: matching folds case, so nothing is copied.
func appendWordTokens(tokens []string, s string) []string {
	start := -1
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			tokens = append(tokens, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		tokens = append(tokens, s[start:])
	}
	return tokens
}

func (k *complianceKeyword) matches(tokens []string) bool {
	hit := false
	for i, t := range tokens {
		if containsFold(k.vetoes, t) {
			return false
		}
		if hit {
			continue
		}
		if containsFold(k.exact, t) {
			hit = true
			continue
		}
		for _, p := range k.prefixes {
			if len(t) >= len(p) && strings.EqualFold(t[:len(p)], p) {
				hit = true
				break
			}
		}
		if i+1 < len(tokens) {
			for _, p := range k.pairs {
				if strings.EqualFold(t, p[0]) && strings.EqualFold(tokens[i+1], p[1]) {
					hit = true
					break
				}
			}
		}
	}
	return hit
}

func containsFold(words []string, t string) bool {
	for _, w := range words {
		if strings.EqualFold(w, t) {
			return true
		}
	}
	return false
}

// cweNumber reads a CWE in any form cleanCWE accepts, so findings that did
// not go through Prepare are tagged alike.
func cweNumber(c CWE) (int, bool) {
	clean, ok := cleanCWE(c)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(string(clean[len("CWE-"):]))
	return n, err == nil
}

// Control is one control of a compliance framework; ID is the compliance tag.
type Control struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// Framework is a compliance framework and the controls scand tags findings
// with. For PCI DSS and SOC 2 that is a subset of the standard: the
// requirements scanners can produce evidence against.
type Framework struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	Version  string    `json:"version"`
	Controls []Control `json:"controls"`
}

// Frameworks returns the three frameworks of the compliance policy, each
// call a fresh copy. Every tag ComplianceTags can return is one of these
// controls.
func Frameworks() []Framework {
	return []Framework{
		{
			ID: "OWASP", Name: "OWASP Top 10", Version: "2021",
			Controls: []Control{
				{"OWASP-A01", "Broken Access Control"},
				{"OWASP-A02", "Cryptographic Failures"},
				{"OWASP-A03", "Injection"},
				{"OWASP-A04", "Insecure Design"},
				{"OWASP-A05", "Security Misconfiguration"},
				{"OWASP-A06", "Vulnerable and Outdated Components"},
				{"OWASP-A07", "Identification and Authentication Failures"},
				{"OWASP-A08", "Software and Data Integrity Failures"},
				{"OWASP-A09", "Security Logging and Monitoring Failures"},
				{"OWASP-A10", "Server-Side Request Forgery (SSRF)"},
			},
		},
		{
			ID: "PCI-DSS", Name: "PCI DSS", Version: "4.0",
			Controls: []Control{
				{"PCI-DSS-1.2.5", "All allowed services, protocols and ports are identified, approved and have a defined business need"},
				{"PCI-DSS-2.2.1", "Configuration standards are developed, implemented and maintained (system hardening)"},
				{"PCI-DSS-2.2.2", "Vendor default accounts are managed (default passwords changed or accounts disabled)"},
				{"PCI-DSS-2.2.4", "Only necessary services, protocols, daemons and functions are enabled"},
				{"PCI-DSS-2.2.6", "System security parameters are configured to prevent misuse"},
				{"PCI-DSS-2.2.7", "All non-console administrative access is encrypted using strong cryptography"},
				{"PCI-DSS-3.5.1", "Stored account data (PAN) is rendered unreadable anywhere it is stored"},
				{"PCI-DSS-3.6.1", "Cryptographic keys are protected against disclosure and misuse"},
				{"PCI-DSS-4.2.1", "Strong cryptography and security protocols protect data during transmission over open, public networks"},
				{"PCI-DSS-6.2.3", "Bespoke and custom software is reviewed before release to find and correct coding vulnerabilities"},
				{"PCI-DSS-6.2.4", "Software engineering techniques prevent or mitigate common software attacks and vulnerabilities"},
				{"PCI-DSS-6.3.1", "Security vulnerabilities are identified and managed"},
				{"PCI-DSS-6.3.2", "An inventory of bespoke, custom and third-party software components is maintained"},
				{"PCI-DSS-6.3.3", "System components are protected from known vulnerabilities by installing security patches and updates"},
				{"PCI-DSS-6.4.3", "Scripts loaded and executed in payment pages are authorized and their integrity assured"},
				{"PCI-DSS-7.2.1", "An access control model is defined and grants least privileges"},
				{"PCI-DSS-7.2.5", "Application and system accounts are assigned only the least privileges necessary"},
				{"PCI-DSS-8.3.1", "All user and administrator access is authenticated with at least one factor"},
				{"PCI-DSS-8.3.2", "Strong cryptography renders authentication factors unreadable in transmission and storage"},
				{"PCI-DSS-8.3.4", "Invalid authentication attempts are limited (lockout)"},
				{"PCI-DSS-8.3.6", "Passwords and passphrases meet minimum length and complexity"},
				{"PCI-DSS-8.3.9", "Passwords used as the only factor are changed at least every 90 days"},
				{"PCI-DSS-8.6.2", "Passwords of application and system accounts are not hard coded in scripts, configuration or source code"},
				{"PCI-DSS-10.2.1", "Audit logs are enabled and active for all system components"},
				{"PCI-DSS-10.3.2", "Audit log files are protected against modification"},
			},
		},
		{
			ID: "SOC2", Name: "SOC 2 Trust Services Criteria", Version: "2017 (revised points of focus 2022)",
			Controls: []Control{
				{"SOC2-CC6.1", "Logical access security software, infrastructure and architectures protect information assets"},
				{"SOC2-CC6.3", "Access is authorized, modified or removed based on roles, least privilege and segregation of duties"},
				{"SOC2-CC6.6", "Logical access security measures protect against threats from sources outside the system boundaries"},
				{"SOC2-CC6.7", "Transmission, movement and removal of information is restricted and protected"},
				{"SOC2-CC6.8", "Controls prevent or detect unauthorized or malicious software"},
				{"SOC2-CC7.1", "Detection and monitoring identify configuration changes that introduce vulnerabilities and newly discovered vulnerabilities"},
				{"SOC2-CC7.2", "System components are monitored for anomalies indicative of malicious acts and errors"},
				{"SOC2-CC8.1", "Changes to infrastructure, data, software and procedures are authorized, designed, tested and approved"},
				{"SOC2-CC9.2", "Risks associated with vendors and business partners are assessed and managed"},
			},
		},
	}
}

// Coverage statuses of a control.
const (
	ControlViolated = "violated"
	ControlClear    = "clear"
)

// ControlCoverage is one control's state in a scan.
type ControlCoverage struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Status is "violated" when at least one unsuppressed finding carries
	// the control's tag, else "clear".
	Status       string   `json:"status"`
	FindingCount int      `json:"finding_count"`
	Fingerprints []string `json:"fingerprints"` // sorted, of those findings
}

// FrameworkCoverage is one framework's state in a scan.
type FrameworkCoverage struct {
	ID               string `json:"id"`
	Name             string `json:"name"`
	Version          string `json:"version"`
	ControlsTotal    int    `json:"controls_total"`
	ControlsViolated int    `json:"controls_violated"`
	ControlsClear    int    `json:"controls_clear"`
	// ControlsClearPercent is 100·controls_clear/controls_total, rounded to
	// one decimal: the share of the framework's listed controls that no
	// unsuppressed finding is tagged with. It is not a compliance score: a
	// clear control is one scand found nothing against.
	ControlsClearPercent float64           `json:"controls_clear_percent"`
	Controls             []ControlCoverage `json:"controls"`
}

// Coverage reports, per framework of Frameworks and in its control order,
// which controls the unsuppressed findings of fs violate. It reads each
// finding's ComplianceTags as stored (what the API shows), not a
// recomputation; tags of no listed control are ignored.
func Coverage(fs []Finding) []FrameworkCoverage {
	counts := map[string]int{}
	fingerprints := map[string][]string{}
	for i := range fs {
		if IsSuppressed(fs[i]) {
			continue
		}
		for _, tag := range fs[i].ComplianceTags {
			counts[tag]++
			if fs[i].Fingerprint != "" {
				fingerprints[tag] = append(fingerprints[tag], fs[i].Fingerprint)
			}
		}
	}
	out := CoverageCounts(counts)
	for f := range out {
		for c := range out[f].Controls {
			cc := &out[f].Controls[c]
			if cc.Status == ControlViolated {
				fps := slices.Clone(fingerprints[cc.ID])
				slices.Sort(fps)
				cc.Fingerprints = slices.Compact(fps)
			}
		}
	}
	return out
}

// CoverageCounts is Coverage from the number of unsuppressed findings per
// tag alone, with every Fingerprints list left empty: a caller that cannot
// hold a scan's findings fills them from its own sorted source.
func CoverageCounts(counts map[string]int) []FrameworkCoverage {
	frameworks := Frameworks()
	out := make([]FrameworkCoverage, 0, len(frameworks))
	for _, fw := range frameworks {
		fc := FrameworkCoverage{
			ID: fw.ID, Name: fw.Name, Version: fw.Version,
			ControlsTotal: len(fw.Controls),
			Controls:      make([]ControlCoverage, 0, len(fw.Controls)),
		}
		for _, c := range fw.Controls {
			cc := ControlCoverage{ID: c.ID, Title: c.Title, Status: ControlClear, Fingerprints: []string{}}
			if n := counts[c.ID]; n > 0 {
				cc.Status = ControlViolated
				cc.FindingCount = n
				fc.ControlsViolated++
			} else {
				fc.ControlsClear++
			}
			fc.Controls = append(fc.Controls, cc)
		}
		if fc.ControlsTotal > 0 {
			fc.ControlsClearPercent = math.Round(float64(fc.ControlsClear)*1000/float64(fc.ControlsTotal)) / 10
		}
		out = append(out, fc)
	}
	return out
}
