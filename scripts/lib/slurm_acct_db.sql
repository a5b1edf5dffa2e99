-- A slurm_acct_db shaped like the one Slurm 22.05's slurmdbd creates (the
-- DESCRIBE of realstack_job_table in ../shared/reference/realstack/evidence/
-- slurm_acct_db-schema.txt; the step table as SHOW CREATE TABLE printed it on
-- a Slurm 22.05 slurmdbd), for cluster `itest`, with a few jobs:
--   uid 0 (root): 101 COMPLETED, 102 running (time_end 0), 103 in deleted state (deleted=1)
--   pcalice (uid 424201, unknown to this host's passwd): 201 OUT_OF_MEMORY,
--     array task 210_3 (id_job 213), 202 with 2 GPUs (gres/gpu = TRES 1001),
--     heterogeneous job 230+0 / 230+1 (id_job 230 and 231)
--   pcbob (uid 424202): 301 CANCELLED, 302 TIMEOUT, 304 PENDING (no start, no TRES yet)
-- and steps (itest_step_table, by job_db_inx) for some of them:
--   101: `-n 2 -c 1 --mem-per-cpu=128M`, `srun` (the rows a real such job left,
--        TotalCPU 5.949046 s, MaxRSS 4079616 bytes on the batch step), and a
--        deleted step that must not count
--   102: running: its srun step has no usage yet
--   201: a batch step alone (MaxRSS 64 MiB)
--   202: three srun steps of 1, 4 and 4 tasks (the first 4-task one has 8 CPUs)
--   213: batch and extern steps, --mem-per-cpu=100M
--   231: `-n 1 -c 2`, `srun`; mem_req with only the per-CPU flag
--   304 (pending) and the rest: no steps
-- The assoc and tres tables carry only the columns the view reads, plus keys.
CREATE DATABASE IF NOT EXISTS slurm_acct_db;
USE slurm_acct_db;

CREATE TABLE tres_table (
  creation_time bigint(20) unsigned NOT NULL,
  deleted tinyint(4) NOT NULL DEFAULT 0,
  id int(11) NOT NULL AUTO_INCREMENT,
  type tinytext NOT NULL,
  name tinytext NOT NULL DEFAULT '',
  PRIMARY KEY (id),
  UNIQUE KEY udex (type(42), name(42))
);
INSERT INTO tres_table (creation_time, id, type, name) VALUES
  (1795975000, 1, 'cpu', ''), (1795975000, 2, 'mem', ''), (1795975000, 3, 'energy', ''),
  (1795975000, 4, 'node', ''), (1795975000, 5, 'billing', ''), (1795975000, 6, 'fs', 'disk'),
  (1795975000, 7, 'vmem', ''), (1795975000, 8, 'pages', ''),
  (1795975000, 1001, 'gres', 'gpu'), (1795975000, 1002, 'gres', 'gpu:fake');

CREATE TABLE itest_assoc_table (
  creation_time bigint(20) unsigned NOT NULL,
  mod_time bigint(20) unsigned NOT NULL DEFAULT 0,
  deleted tinyint(4) NOT NULL DEFAULT 0,
  is_def tinyint(4) NOT NULL DEFAULT 0,
  id_assoc int(10) unsigned NOT NULL AUTO_INCREMENT,
  user tinytext NOT NULL DEFAULT '',
  acct tinytext NOT NULL,
  `partition` tinytext NOT NULL DEFAULT '',
  parent_acct tinytext NOT NULL DEFAULT '',
  lft int(11) NOT NULL,
  rgt int(11) NOT NULL,
  PRIMARY KEY (id_assoc),
  UNIQUE KEY udex (user(42), acct(42), `partition`(42))
);
INSERT INTO itest_assoc_table (creation_time, id_assoc, user, acct, parent_acct, lft, rgt) VALUES
  (1795975000, 1, '', 'root', '', 1, 10), (1795975000, 2, 'root', 'root', '', 2, 3),
  (1795975000, 3, '', 'research', 'root', 4, 9), (1795975000, 4, 'pcalice', 'research', '', 5, 6),
  (1795975000, 5, 'pcbob', 'research', '', 7, 8);

CREATE TABLE itest_job_table (
  job_db_inx bigint(20) unsigned NOT NULL AUTO_INCREMENT,
  mod_time bigint(20) unsigned NOT NULL DEFAULT 0,
  deleted tinyint(4) NOT NULL DEFAULT 0,
  account tinytext DEFAULT NULL,
  admin_comment text DEFAULT NULL,
  array_task_str text DEFAULT NULL,
  array_max_tasks int(10) unsigned NOT NULL DEFAULT 0,
  array_task_pending int(10) unsigned NOT NULL DEFAULT 0,
  constraints text DEFAULT '',
  container text DEFAULT NULL,
  cpus_req int(10) unsigned NOT NULL,
  derived_ec int(10) unsigned NOT NULL DEFAULT 0,
  derived_es text DEFAULT NULL,
  env_hash_inx bigint(20) unsigned NOT NULL DEFAULT 0,
  exit_code int(10) unsigned NOT NULL DEFAULT 0,
  flags int(10) unsigned NOT NULL DEFAULT 0,
  job_name tinytext NOT NULL,
  id_assoc int(10) unsigned NOT NULL,
  id_array_job int(10) unsigned NOT NULL DEFAULT 0,
  id_array_task int(10) unsigned NOT NULL DEFAULT 4294967294,
  id_block tinytext DEFAULT NULL,
  id_job int(10) unsigned NOT NULL,
  id_qos int(10) unsigned NOT NULL DEFAULT 0,
  id_resv int(10) unsigned NOT NULL,
  id_wckey int(10) unsigned NOT NULL,
  id_user int(10) unsigned NOT NULL,
  id_group int(10) unsigned NOT NULL,
  het_job_id int(10) unsigned NOT NULL,
  het_job_offset int(10) unsigned NOT NULL,
  kill_requid int(10) unsigned DEFAULT NULL,
  state_reason_prev int(10) unsigned NOT NULL,
  mcs_label tinytext DEFAULT '',
  mem_req bigint(20) unsigned NOT NULL DEFAULT 0,
  nodelist text DEFAULT NULL,
  nodes_alloc int(10) unsigned NOT NULL,
  node_inx text DEFAULT NULL,
  `partition` tinytext NOT NULL,
  priority int(10) unsigned NOT NULL,
  script_hash_inx bigint(20) unsigned NOT NULL DEFAULT 0,
  state int(10) unsigned NOT NULL,
  timelimit int(10) unsigned NOT NULL DEFAULT 0,
  time_submit bigint(20) unsigned NOT NULL DEFAULT 0,
  time_eligible bigint(20) unsigned NOT NULL DEFAULT 0,
  time_start bigint(20) unsigned NOT NULL DEFAULT 0,
  time_end bigint(20) unsigned NOT NULL DEFAULT 0,
  time_suspended bigint(20) unsigned NOT NULL DEFAULT 0,
  gres_used text NOT NULL DEFAULT '',
  wckey tinytext NOT NULL DEFAULT '',
  work_dir text NOT NULL DEFAULT '',
  submit_line text DEFAULT NULL,
  system_comment text DEFAULT NULL,
  tres_alloc text NOT NULL DEFAULT '',
  tres_req text NOT NULL DEFAULT '',
  PRIMARY KEY (job_db_inx),
  UNIQUE KEY (id_job, time_submit),
  KEY old_tuple (id_job, id_assoc, time_submit),
  KEY rollup (time_eligible, time_end),
  KEY rollup2 (time_end, time_eligible),
  KEY nodes_alloc (nodes_alloc),
  KEY wckey (id_wckey),
  KEY qos (id_qos),
  KEY association (id_assoc),
  KEY array_job (id_array_job),
  KEY het_job (het_job_id),
  KEY reserv (id_resv),
  KEY sacct_def (id_user, time_start, time_end),
  KEY sacct_def2 (id_user, time_end, time_eligible),
  KEY env_hash_inx (env_hash_inx),
  KEY script_hash_inx (script_hash_inx)
);

-- state: Slurm's enum job_states (0 PENDING, 1 RUNNING, 3 COMPLETE, 4 CANCELLED,
-- 6 TIMEOUT, 11 OUT_OF_MEMORY); times in epoch seconds, 0 = not yet;
-- timelimit in minutes (4294967295 = INFINITE); tres_alloc "id=count" with the
-- ids of tres_table (1 cpu, 2 mem MB, 4 node, 5 billing, 1001 gres/gpu);
-- mem_req in MB per node, or per CPU with bit 63 (MEM_PER_CPU) set.
INSERT INTO itest_job_table (job_db_inx, id_job, id_user, id_group, id_assoc, account, job_name, `partition`, state, exit_code,
    cpus_req, mem_req, nodelist, nodes_alloc, timelimit, time_submit, time_start, time_end, tres_alloc,
    id_array_job, id_array_task, het_job_id, het_job_offset, deleted, work_dir, submit_line,
    id_resv, id_wckey, state_reason_prev, priority) VALUES
  (11, 101, 0, 0, 2, 'root', 'rootjob', 'debug', 3, 0, 2, 9223372036854775936, 'vm', 1, 5,
   1795975755, 1795975755, 1795975776, '1=2,2=256,4=1,5=2', 0, 4294967294, 0, 4294967294, 0, '/root', 'sbatch x', 0, 0, 0, 1),
  (12, 102, 0, 0, 2, 'root', 'still running', 'debug', 1, 0, 4, 4096, 'node[01-02]', 2, 4294967295,
   1795976000, 1795976010, 0, '1=4,2=4096,4=2,5=4', 0, 4294967294, 0, 4294967294, 0, '/root', 'sbatch y', 0, 0, 0, 1),
  (13, 103, 0, 0, 2, 'root', 'deleted', 'debug', 3, 0, 1, 64, 'vm', 1, 5,
   1795970000, 1795970000, 1795970010, '1=1,2=64,4=1,5=1', 0, 4294967294, 0, 4294967294, 1, '/root', 'sbatch z', 0, 0, 0, 1),
  (21, 201, 424201, 424201, 4, 'research', 'oom', 'debug', 11, 253, 1, 64, 'vm', 1, 10,
   1795977000, 1795977001, 1795977011, '1=1,2=64,4=1,5=1', 0, 4294967294, 0, 4294967294, 0, '/home/pcalice', 'sbatch oom', 0, 0, 0, 1),
  (22, 213, 424201, 424201, 4, 'research', 'arr', 'debug', 3, 0, 1, 9223372036854775908, 'vm', 1, 60,
   1795978000, 1795978005, 1795978065, '1=1,2=100,4=1,5=1', 210, 3, 0, 4294967294, 0, '/home/pcalice', 'sbatch -a 1-3', 0, 0, 0, 1),
  (23, 202, 424201, 424201, 4, 'research', 'gpu', 'gpu', 3, 0, 8, 16384, 'gpu01', 1, 1440,
   1795979000, 1795979100, 1795982700, '1=8,2=16384,4=1,5=10,1001=2,1002=2', 0, 4294967294, 0, 4294967294, 0, '/home/pcalice', 'sbatch g', 0, 0, 0, 1),
  (24, 230, 424201, 424201, 4, 'research', 'het', 'debug', 3, 0, 1, 100, 'vm', 1, 10,
   1795980000, 1795980001, 1795980101, '1=1,2=100,4=1,5=1', 0, 4294967294, 230, 0, 0, '/home/pcalice', 'sbatch het', 0, 0, 0, 1),
  (25, 231, 424201, 424201, 4, 'research', 'het', 'debug', 3, 0, 2, 9223372036854775808, 'vm', 1, 10,
   1795980000, 1795980001, 1795980101, '1=2,2=200,4=1,5=2', 0, 4294967294, 230, 1, 0, '/home/pcalice', 'sbatch het', 0, 0, 0, 1),
  (31, 301, 424202, 424202, 5, 'research', 'cancelme', 'debug', 4, 0, 1, 32, 'vm', 1, 5,
   1795981000, 1795981001, 1795981005, '1=1,2=32,4=1,5=1', 0, 4294967294, 0, 4294967294, 0, '/home/pcbob', 'sbatch c', 0, 0, 0, 1),
  (32, 302, 424202, 424202, 5, 'research', 'slow', 'debug', 6, 0, 1, 32, 'vm', 1, 1,
   1795982000, 1795982001, 1795982061, '1=1,2=32,4=1,5=1', 0, 4294967294, 0, 4294967294, 0, '/home/pcbob', 'sbatch t', 0, 0, 0, 1),
  (33, 304, 424202, 424202, 5, 'research', 'waiting', 'debug', 0, 0, 2, 500, 'None assigned', 0, 30,
   1795983000, 0, 0, '', 0, 4294967294, 0, 4294967294, 0, '/home/pcbob', 'sbatch w', 0, 0, 0, 1);

CREATE TABLE itest_step_table (
  job_db_inx bigint(20) unsigned NOT NULL,
  deleted tinyint(4) NOT NULL DEFAULT 0,
  exit_code int(11) NOT NULL DEFAULT 0,
  id_step int(11) NOT NULL,
  step_het_comp int(10) unsigned NOT NULL DEFAULT 4294967294,
  kill_requid int(10) unsigned DEFAULT NULL,
  nodelist text NOT NULL,
  nodes_alloc int(10) unsigned NOT NULL,
  node_inx text DEFAULT NULL,
  state smallint(5) unsigned NOT NULL,
  step_name text NOT NULL,
  task_cnt int(10) unsigned NOT NULL,
  task_dist int(11) NOT NULL DEFAULT 0,
  time_start bigint(20) unsigned NOT NULL DEFAULT 0,
  time_end bigint(20) unsigned NOT NULL DEFAULT 0,
  time_suspended bigint(20) unsigned NOT NULL DEFAULT 0,
  user_sec bigint(20) unsigned NOT NULL DEFAULT 0,
  user_usec int(10) unsigned NOT NULL DEFAULT 0,
  sys_sec bigint(20) unsigned NOT NULL DEFAULT 0,
  sys_usec int(10) unsigned NOT NULL DEFAULT 0,
  act_cpufreq double unsigned NOT NULL DEFAULT 0,
  consumed_energy bigint(20) unsigned NOT NULL DEFAULT 0,
  container text DEFAULT NULL,
  req_cpufreq_min int(10) unsigned NOT NULL DEFAULT 0,
  req_cpufreq int(10) unsigned NOT NULL DEFAULT 0,
  req_cpufreq_gov int(10) unsigned NOT NULL DEFAULT 0,
  submit_line text DEFAULT NULL,
  tres_alloc text NOT NULL DEFAULT '',
  tres_usage_in_ave text NOT NULL DEFAULT '',
  tres_usage_in_max text NOT NULL DEFAULT '',
  tres_usage_in_max_taskid text NOT NULL DEFAULT '',
  tres_usage_in_max_nodeid text NOT NULL DEFAULT '',
  tres_usage_in_min text NOT NULL DEFAULT '',
  tres_usage_in_min_taskid text NOT NULL DEFAULT '',
  tres_usage_in_min_nodeid text NOT NULL DEFAULT '',
  tres_usage_in_tot text NOT NULL DEFAULT '',
  tres_usage_out_ave text NOT NULL DEFAULT '',
  tres_usage_out_max text NOT NULL DEFAULT '',
  tres_usage_out_max_taskid text NOT NULL DEFAULT '',
  tres_usage_out_max_nodeid text NOT NULL DEFAULT '',
  tres_usage_out_min text NOT NULL DEFAULT '',
  tres_usage_out_min_taskid text NOT NULL DEFAULT '',
  tres_usage_out_min_nodeid text NOT NULL DEFAULT '',
  tres_usage_out_tot text NOT NULL DEFAULT '',
  PRIMARY KEY (job_db_inx, id_step, step_het_comp),
  KEY no_step_comp (job_db_inx, id_step),
  KEY time_start_end (time_start, time_end)
);

-- id_step: -5 batch, -4 extern, 0.. srun steps; state 3 COMPLETED, 1 RUNNING;
-- tres_alloc as in the job table; tres_usage_in_max "id=value" with TRES 2
-- (mem) the largest task's RSS in bytes; CPU times in seconds + microseconds.
INSERT INTO itest_step_table (job_db_inx, deleted, id_step, step_name, nodelist, nodes_alloc, state, task_cnt,
    time_start, time_end, user_sec, user_usec, sys_sec, sys_usec, submit_line, tres_alloc, tres_usage_in_max) VALUES
  (11, 0, -5, 'batch', 'vm', 1, 3, 1, 1795975755, 1795975776, 0, 7816, 0, 10606, NULL,
   '1=2,2=256,4=1', '1=10,2=4079616,3=0,6=7941,7=4083712,8=0'),
  (11, 0, -4, 'extern', 'vm', 1, 3, 1, 1795975755, 1795975776, 0, 1761, 0, 0, NULL,
   '1=2,2=256,3=18446744073709551614,4=1,5=2', '1=0,2=110592,3=0,6=6976,7=110592,8=0'),
  (11, 0, 0, 'stress', 'vm', 1, 3, 2, 1795975756, 1795975775, 5, 919951, 0, 8912, 'srun stress --cpu 1',
   '1=2,2=256,4=1', '1=2960,2=151552,3=0,6=4813,7=151552,8=0'),
  (11, 1, 1, 'gone', 'vm', 1, 3, 8, 1795975756, 1795975775, 1000, 0, 0, 0, 'srun -n 8 gone',
   '1=8,2=256,4=1', '1=9999,2=999999999999,3=0'),
  (12, 0, 0, 'solver', 'node[01-02]', 2, 1, 4, 1795976011, 0, 0, 0, 0, 0, 'srun solver',
   '1=4,2=4096,4=2', ''),
  (21, 0, -5, 'batch', 'vm', 1, 11, 1, 1795977001, 1795977011, 9, 0, 1, 0, NULL,
   '1=1,2=64,4=1', '1=8000,2=67108864,3=0,6=1024,7=67108864,8=0'),
  (23, 0, -5, 'batch', 'gpu01', 1, 3, 1, 1795979100, 1795982700, 1, 500000, 0, 250000, NULL,
   '1=8,2=16384,4=1,1001=2', '1=100,2=8388608,3=0'),
  (23, 0, -4, 'extern', 'gpu01', 1, 3, 1, 1795979100, 1795982700, 0, 1000, 0, 0, NULL,
   '1=8,2=16384,4=1,5=10,1001=2', '1=0,2=106496,3=0'),
  (23, 0, 0, 'prepare', 'gpu01', 1, 3, 1, 1795979101, 1795979500, 3000, 0, 100, 0, 'srun prepare',
   '1=8,2=16384,4=1,1001=2', '1=3100000,2=8589934592,3=0'),
  (23, 0, 1, 'train', 'gpu01', 1, 3, 4, 1795979501, 1795982600, 400, 0, 20, 0, 'srun -n 4 -c 2 train',
   '1=8,2=16384,4=1,1001=2', '1=420000,2=1073741824,3=0'),
  (23, 0, 2, 'check', 'gpu01', 1, 3, 4, 1795982601, 1795982690, 10, 0, 1, 0, 'srun -n 4 -c 1 check',
   '1=4,2=16384,4=1,1001=2', '1=11000,2=1048576,3=0'),
  (22, 0, -5, 'batch', 'vm', 1, 3, 1, 1795978005, 1795978065, 50, 0, 2, 500000, NULL,
   '1=1,2=100,4=1', '1=52500,2=104857600,3=0'),
  (22, 0, -4, 'extern', 'vm', 1, 3, 1, 1795978005, 1795978065, 0, 1000, 0, 0, NULL,
   '1=1,2=100,4=1,5=1', '1=0,2=110592,3=0'),
  (25, 0, -5, 'batch', 'vm', 1, 3, 1, 1795980001, 1795980101, 0, 20000, 0, 10000, NULL,
   '1=2,2=200,4=1', '1=30,2=4079616,3=0'),
  (25, 0, 0, 'omp', 'vm', 1, 3, 1, 1795980002, 1795980100, 190, 0, 5, 0, 'srun omp',
   '1=2,2=200,4=1', '1=195000,2=52428800,3=0');
