package io.pg2lite.sink.bench;

import io.pg2lite.testkit.support.SvgPlot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a soak's minutes beside the docs: {@code soak-<minutes>min.csv} (one row a minute, every
 * figure of the printed line) and two plots, the workers' memory ({@code -memory.svg}: live heap
 * and RSS per worker) and commit → visible latency ({@code -latency.svg}: p50 and p99 of the
 * probe rows that met no fault, what the drift claim is about; with the rows a fault met, a
 * minute reaches seconds and would flatten the rest of the chart, so those are in the CSV only).
 */
final class SoakReport {
  private SoakReport() {}

  static void write(Path dir, int minutes, int workers, List<SoakMinute> rows) throws IOException {
    String name = "soak-" + minutes + "min";
    Files.createDirectories(dir);
    List<String> csv = new ArrayList<>();
    csv.add(SoakMinute.csvHeader(workers));
    rows.forEach(r -> csv.add(r.csv()));
    Path table = Files.write(dir.resolve(name + ".csv"), csv);
    SvgPlot memory = new SvgPlot("Connect workers' memory during the soak", "minute", "MB", false);
    SvgPlot latency = new SvgPlot("Commit → visible in the replica, probe rows that met no fault", "minute", "ms",
        false);
    for (SoakMinute r : rows) {
      for (int w = 0; w < workers; w++) {
        if (r.heapMb()[w] >= 0) {
          memory.point("live heap, worker " + (w + 1), r.minute(), r.heapMb()[w]);
        }
      }
      for (int w = 0; w < workers; w++) {
        if (r.rssMb()[w] >= 0) {
          memory.point("RSS, worker " + (w + 1), r.minute(), r.rssMb()[w]);
        }
      }
      latency.point("p99", r.minute(), r.quietP99()).point("p50", r.minute(), r.quietP50());
    }
    System.out.printf("soak: minutes in %s; plots %s %s%n", table, memory.write(dir.resolve(name + "-memory.svg")),
        latency.write(dir.resolve(name + "-latency.svg")));
  }
}
