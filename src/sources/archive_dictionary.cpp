// The preset dictionaries of the job archive's JSON (archive_dictionary.hpp).
// Written once from the job JSON of the render fixtures (accounting only,
// out of memory, page cache, GPU, serial) as they were in December 2026.
// NEVER EDIT a dictionary: records name theirs by Adler-32, and one changed
// byte makes every record compressed with it unreadable. A better one is
// added to the list instead; archive_dictionary_test pins each checksum.
#include "sources/archive_dictionary.hpp"

namespace petricore::sources {
namespace {

// Dictionary 1 (Adler-32 1171346359, 15571 bytes).
constexpr std::string_view kDictionary1 =
    R"dict({
  "jobid": 4301,
  "sponsor": "def-frank",
  "username": "frank",
  "runtime": "00:00:20",
  "state": "COMPLETED",
  "start": "2026-11-29T18:09:15Z",
  "end": "2026-11-29T18:09:35Z",
  "uses_scratch": false,
  "alloc_tres": {
    "billing": null,
    "alloc_cpu": 1,
    "alloc_mem": 2000,
    "alloc_nodes": "node06",
    "alloc_gpu": 0
  },
  "threads": {},
  "cpu": {
    "available": {
      "amount": 1,
      "unit": "cores"
    },
    "used": {
      "amount": null,
      "unit": "cores"
    },
    "time_core": [],
    "time_total": {
      "time": 18,
      "unit": "s",
      "source": "accounting"
    },
    "avg_usage_job": {
      "usage": 90,
      "lowest_expected_usage": 80,
      "unit": "%",
      "source": "accounting"
    },
    "max_usage_job": {
      "usage": null,
      "unit": "%"
    },
    "user_time": {
      "time": null,
      "unit": "s"
    },
    "system_time": {
      "time": null,
      "unit": "s"
    }
  },
  "ram": {
    "used": {
      "amount": 700,
      "unit": "MB",
      "usage": 0.35,
      "source": "accounting"
    },
    "available": {
      "amount": 2000,
      "unit": "MB"
    },
    "peak": {
      "amount": null,
      "unit": "MB"
    },
    "breakdown": {
      "anon": null,
      "shmem": null,
      "file": null,
      "kernel": null,
      "swap": null,
      "unit": "MB"
    }
  },
  "gpu": {
    "alloc_gpu": {},
    "utilization": {
      "mean": null,
      "max": null,
      "per_gpu": []
    },
    "memory": {
      "peak_mb": null,
      "total_mb": null
    },
    "power": {
      "mean_w": null,
      "energy_wh": null
    }
  },
  "io": {
    "opened_files": null,
    "read": {
      "amount": null,
      "unit": "MB",
      "count": null
    },
    "write": {
      "amount": null,
      "unit": "MB",
      "count": null
    }
  },
  "missing": [],
  "findings": [],
  "warning": false
}
)dict"
    R"dict({
  "jobid": 51253,
  "sponsor": "def-carol",
  "username": "carol",
  "runtime": "00:01:35",
  "state": "OUT_OF_MEMORY",
  "start": "2026-11-29T18:09:15Z",
  "end": "2026-11-29T18:10:50Z",
  "alloc_tres": {
    "billing": null,
    "alloc_cpu": 1,
    "alloc_mem": 2000,
    "alloc_nodes": "node07",
    "alloc_gpu": 0
  },
  "no_usage": "No samples were recorded (a job shorter than the collector's interval, or no collector on its nodes), and the accounting record has neither TotalCPU nor MaxRSS.",
  "findings": [
    {
      "rule": "job_state",
      "severity": "critical",
      "message": "The job ran out of memory (OUT_OF_MEMORY).",
      "advice": "Request more memory than the job had (e.g. --mem=3000M, 1.5 × the 2000 MB it had), or lower the program's memory use (smaller batches or chunks of input); the job's output file names the step that was killed.",
      "value": 2000,
      "threshold": 2000,
      "unit": "MB"
    }
  ],
  "warning": true
}
)dict"
    R"dict({
  "jobid": 4300,
  "sponsor": "def-erin",
  "username": "erin",
  "runtime": "00:10:00",
  "state": "COMPLETED",
  "start": "2026-11-29T18:09:15Z",
  "end": "2026-11-29T18:19:15Z",
  "uses_scratch": true,
  "alloc_tres": {
    "billing": null,
    "alloc_cpu": 1,
    "alloc_mem": 4000,
    "alloc_nodes": "node05",
    "alloc_gpu": 0
  },
  "threads": {},
  "cpu": {
    "available": {
      "amount": 1,
      "unit": "cores"
    },
    "used": {
      "amount": null,
      "unit": "cores"
    },
    "time_core": [],
    "time_total": {
      "time": 570,
      "unit": "s",
      "source": "metrics"
    },
    "avg_usage_job": {
      "usage": 95,
      "lowest_expected_usage": 80,
      "unit": "%",
      "source": "metrics"
    },
    "max_usage_job": {
      "usage": 95,
      "unit": "%"
    },
    "user_time": {
      "time": null,
      "unit": "s"
    },
    "system_time": {
      "time": null,
      "unit": "s"
    }
  },
  "ram": {
    "used": {
      "amount": 3,
      "unit": "MB",
      "usage": 0.0008,
      "source": "metrics"
    },
    "available": {
      "amount": 4000,
      "unit": "MB"
    },
    "peak": {
      "amount": 516,
      "unit": "MB"
    },
    "breakdown": {
      "anon": 2.5,
      "shmem": 0.5,
      "file": 510,
      "kernel": 3,
      "swap": null,
      "unit": "MB"
    }
  },
  "gpu": {
    "alloc_gpu": {},
    "utilization": {
      "mean": null,
      "max": null,
      "per_gpu": []
    },
    "memory": {
      "peak_mb": null,
      "total_mb": null
    },
    "power": {
      "mean_w": null,
      "energy_wh": null
    }
  },
  "io": {
    "opened_files": 2,
    "read": {
      "amount": 5000,
      "unit": "MB",
      "count": null
    },
    "write": {
      "amount": 0,
      "unit": "MB",
      "count": null
    }
  },
  "missing": [],
  "findings": [
    {
      "rule": "memory_overallocated",
      "severity": "warning",
      "message": "The job's resident memory peaked at 3 MB of the 4000 MB allocated (0.1 %). With the page cache, which the kernel gives back when the job needs room, the memory cgroup peaked at 516 MB.",
      "advice": "Request --mem=64M (the least worth asking for: 64 MB per node) next time: memory asked for but unused stays reserved, and smaller requests start sooner.",
      "value": 0.08,
      "threshold": 70,
      "unit": "%"
    }
  ],
  "warning": true
}
)dict"
    R"dict({
  "jobid": 51240,
  "sponsor": "rrg-bob",
  "username": "bob",
  "runtime": "02:00:00",
  "state": "COMPLETED",
  "start": "2026-11-29T18:09:15Z",
  "end": "2026-11-29T20:09:15Z",
  "uses_scratch": true,
  "alloc_tres": {
    "billing": 12,
    "alloc_cpu": 4,
    "alloc_mem": 16000,
    "alloc_nodes": "gpu[01-02]",
    "alloc_gpu": 2
  },
  "threads": {
    "python": 13
  },
  "cpu": {
    "available": {
      "amount": 4,
      "unit": "cores"
    },
    "used": {
      "amount": 3,
      "unit": "cores"
    },
    "time_core": [
      {
        "core": "gpu01_core_0",
        "time": 7000,
        "unit": "s",
        "percent_of_total": 30.43
      },
      {
        "core": "gpu01_core_1",
        "time": 7000,
        "unit": "s",
        "percent_of_total": 30.43
      },
      {
        "core": "gpu02_core_0",
        "time": 7000,
        "unit": "s",
        "percent_of_total": 30.43
      },
      {
        "core": "gpu02_core_1",
        "time": 2000,
        "unit": "s",
        "percent_of_total": 8.7
      }
    ],
    "time_total": {
      "time": 23000,
      "unit": "s",
      "source": "metrics"
    },
    "avg_usage_job": {
      "usage": 319.44,
      "lowest_expected_usage": 320,
      "unit": "%",
      "source": "metrics"
    },
    "max_usage_job": {
      "usage": 350,
      "unit": "%"
    },
    "user_time": {
      "time": 21000,
      "unit": "s"
    },
    "system_time": {
      "time": 2000,
      "unit": "s"
    }
  },
  "ram": {
    "used": {
      "amount": 12900,
      "unit": "MB",
      "usage": 0.8063,
      "source": "metrics"
    },
    "available": {
      "amount": 16000,
      "unit": "MB"
    },
    "peak": {
      "amount": 12900,
      "unit": "MB"
    },
    "breakdown": {
      "anon": null,
      "shmem": null,
      "file": null,
      "kernel": null,
      "swap": null,
      "unit": "MB"
    }
  },
  "gpu": {
    "alloc_gpu": {
      "gpu01": [
        0
      ],
      "gpu02": [
        1
      ]
    },
    "utilization": {
      "mean": 0,
      "max": 0,
      "per_gpu": [
        {
          "node": "gpu01",
          "gpuid": 0,
          "mean": 0,
          "max": 0,
          "memory_peak_mb": null,
          "memory_total_mb": null,
          "power_mean_w": null
        },
        {
          "node": "gpu02",
          "gpuid": 1,
          "mean": 0,
          "max": 0,
          "memory_peak_mb": null,
          "memory_total_mb": null,
          "power_mean_w": null
        }
      ]
    },
    "memory": {
      "peak_mb": null,
      "total_mb": null
    },
    "power": {
      "mean_w": null,
      "energy_wh": null
    }
  },
  "io": {
    "opened_files": 41,
    "read": {
      "amount": 40,
      "unit": "MB",
      "count": 100
    },
    "write": {
      "amount": 2,
      "unit": "MB",
      "count": 10
    }
  },
  "missing": [],
  "findings": [
    {
      "rule": "gpu_unused",
      "severity": "critical",
      "message": "The job had 2 GPUs but their utilisation stayed at 0 % for the whole job.",
      "advice": "Check that the program was built with GPU support and sees the GPU (run nvidia-smi inside the job; in Python e.g. torch.cuda.is_available()); if the job needs no GPU, submit it without --gres=gpu or --gpus.",
      "value": 0,
      "threshold": 0,
      "unit": "%"
    },
    {
      "rule": "cpu_efficiency",
      "severity": "warning",
      "message": "The job kept its 4 allocated cores 79.9 % busy on average (about 3.2 cores' worth).",
      "advice": "Request fewer cores (about 3 would have been enough), or make sure the program really runs in parallel (its thread or MPI options, srun for MPI programs); a short scaling test shows how many cores pay off.",
      "value": 79.86,
      "threshold": 80,
      "unit": "%"
    },
    {
      "rule": "core_imbalance",
      "severity": "warning",
      "message": "1 of 4 allocated cores got less than 90 % of the mean CPU time per core; the least used, gpu02_core_1, got 34.8 %.",
      "advice": "Spread the work evenly over the threads or ranks (e.g. OpenMP schedule(dynamic), smaller work chunks, a better domain decomposition), or request only as many cores as the program keeps busy.",
      "value": 0.3478,
      "threshold": 0.9,
      "unit": "ratio"
    },
    {
      "rule": "too_many_threads",
      "severity": "warning",
      "message": "Processes named 'python' ran up to 13 threads on 4 allocated cores.",
      "advice": "Match the thread count to the cores asked for: OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK (likewise MKL_NUM_THREADS, OPENBLAS_NUM_THREADS, or the program's own threads option); more threads than cores only add switching overhead.",
      "value": 13,
      "threshold": 8,
      "unit": "count"
    },
    {
      "rule": "time_overrequested",
      "severity": "warning",
      "message": "The job ran 02:00:00, 25 % of its 08:00:00 time limit.",
      "advice": "Request --time=03:00:00 (the runtime plus 50 %) for similar jobs: shorter limits start sooner, since the scheduler can fit them into gaps (backfill).",
      "value": 25,
      "threshold": 60,
      "unit": "%"
    }
  ],
  "warning": true
}
)dict"
    R"dict({
  "jobid": 51234,
  "sponsor": "def-alice",
  "username": "alice",
  "runtime": "00:10:02",
  "state": "COMPLETED",
  "start": "2026-11-29T18:09:15Z",
  "end": "2026-11-29T18:19:17Z",
  "uses_scratch": false,
  "alloc_tres": {
    "billing": 4,
    "alloc_cpu": 4,
    "alloc_mem": 8000,
    "alloc_nodes": "node01",
    "alloc_gpu": 0
  },
  "threads": {
    "bash": 1,
    "python3": 1
  },
  "cpu": {
    "available": {
      "amount": 4,
      "unit": "cores"
    },
    "used": {
      "amount": 1,
      "unit": "cores"
    },
    "time_core": [
      {
        "core": "node01_core_0",
        "time": 560.25,
        "unit": "s",
        "percent_of_total": 94.92
      },
      {
        "core": "node01_core_1",
        "time": 10,
        "unit": "s",
        "percent_of_total": 1.69
      },
      {
        "core": "node01_core_2",
        "time": 10,
        "unit": "s",
        "percent_of_total": 1.69
      },
      {
        "core": "node01_core_3",
        "time": 10,
        "unit": "s",
        "percent_of_total": 1.69
      }
    ],
    "time_total": {
      "time": 590.25,
      "unit": "s",
      "source": "metrics"
    },
    "avg_usage_job": {
      "usage": 98.05,
      "lowest_expected_usage": 320,
      "unit": "%",
      "source": "metrics"
    },
    "max_usage_job": {
      "usage": 100,
      "unit": "%"
    },
    "user_time": {
      "time": 580.5,
      "unit": "s"
    },
    "system_time": {
      "time": 9.75,
      "unit": "s"
    }
  },
  "ram": {
    "used": {
      "amount": 1500,
      "unit": "MB",
      "usage": 0.1875,
      "source": "metrics"
    },
    "available": {
      "amount": 8000,
      "unit": "MB"
    },
    "peak": {
      "amount": 1550.5,
      "unit": "MB"
    },
    "breakdown": {
      "anon": null,
      "shmem": null,
      "file": null,
      "kernel": null,
      "swap": null,
      "unit": "MB"
    }
  },
  "gpu": {
    "alloc_gpu": {},
    "utilization": {
      "mean": null,
      "max": null,
      "per_gpu": []
    },
    "memory": {
      "peak_mb": null,
      "total_mb": null
    },
    "power": {
      "mean_w": null,
      "energy_wh": null
    }
  },
  "io": {
    "opened_files": 4,
    "read": {
      "amount": 812.4,
      "unit": "MB",
      "count": 1800
    },
    "write": {
      "amount": 20.6,
      "unit": "MB",
      "count": 120
    }
  },
  "missing": [],
  "findings": [
    {
      "rule": "cpu_efficiency",
      "severity": "critical",
      "message": "The job kept its 4 allocated cores 24.5 % busy on average (about 1 core's worth).",
      "advice": "Request fewer cores (about 1 would have been enough), or make sure the program really runs in parallel (its thread or MPI options, srun for MPI programs); a short scaling test shows how many cores pay off.",
      "value": 24.51,
      "threshold": 65,
      "unit": "%"
    },
    {
      "rule": "core_imbalance",
      "severity": "warning",
      "message": "3 of 4 allocated cores got less than 90 % of the mean CPU time per core; the least used, node01_core_1, got 6.8 %.",
      "advice": "Spread the work evenly over the threads or ranks (e.g. OpenMP schedule(dynamic), smaller work chunks, a better domain decomposition), or request only as many cores as the program keeps busy.",
      "value": 0.0678,
      "threshold": 0.9,
      "unit": "ratio"
    },
    {
      "rule": "serial_on_many_cores",
      "severity": "warning",
      "message": "The job had 4 cores but kept only about one busy (0.98 cores' worth on average): the program looks serial.",
      "advice": "Use --ntasks=1 --cpus-per-task=1 unless the program is meant to run in parallel; if it is, check that it is started with its threads or MPI options (e.g. OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK, srun).",
      "value": 0.9805,
      "threshold": 0.85,
      "unit": "ratio"
    },
    {
      "rule": "memory_overallocated",
      "severity": "warning",
      "message": "The job's resident memory peaked at 1500 MB of the 8000 MB allocated (18.8 %). With the page cache, which the kernel gives back when the job needs room, the memory cgroup peaked at 1550.5 MB.",
      "advice": "Request --mem=1800M (1.2 × the peak) next time: memory asked for but unused stays reserved, and smaller requests start sooner.",
      "value": 18.75,
      "threshold": 70,
      "unit": "%"
    },
    {
      "rule": "time_overrequested",
      "severity": "warning",
      "message": "The job ran 00:10:02, 16.7 % of its 01:00:00 time limit.",
      "advice": "Request --time=00:16:00 (the runtime plus 50 %) for similar jobs: shorter limits start sooner, since the scheduler can fit them into gaps (backfill).",
      "value": 16.72,
      "threshold": 60,
      "unit": "%"
    },
    {
      "rule": "scratch_unused",
      "severity": "info",
      "message": "The job read and wrote 833 MB but never used a scratch filesystem.",
      "advice": "Run I/O-heavy work in scratch space: keep the job's working files under /scratch (or on the node-local /localscratch, $SLURM_TMPDIR) while it runs, then copy the results to home or project storage.",
      "value": 833,
      "threshold": 100,
      "unit": "MB"
    }
  ],
  "warning": true
}
)dict";

}  // namespace

std::string_view archive_json_dictionary() {
  return kDictionary1;
}

std::vector<std::string_view> archive_json_dictionaries() {
  return {kDictionary1};
}

}  // namespace petricore::sources
