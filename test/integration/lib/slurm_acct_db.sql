-- A slurm_acct_db shaped like the one Slurm 22.05's slurmdbd creates (the
-- DESCRIBE of realstack_job_table in ../shared/reference/realstack/evidence/
-- slurm_acct_db-schema.txt), for cluster `itest`, with a few jobs:
--   uid 0 (root): 101 COMPLETED, 102 running (time_end 0), 103 in deleted state (deleted=1)
--   pcalice (uid 424201, unknown to this host's passwd): 201 OUT_OF_MEMORY,
--     array task 210_3 (id_job 213), 202 with 2 GPUs (gres/gpu = TRES 1001),
--     heterogeneous job 230+0 / 230+1 (id_job 230 and 231)
--   pcbob (uid 424202): 301 CANCELLED, 302 TIMEOUT, 304 PENDING (no start, no TRES yet)
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
-- ids of tres_table (1 cpu, 2 mem MB, 4 node, 5 billing, 1001 gres/gpu).
INSERT INTO itest_job_table (id_job, id_user, id_group, id_assoc, account, job_name, `partition`, state, exit_code,
    cpus_req, mem_req, nodelist, nodes_alloc, timelimit, time_submit, time_start, time_end, tres_alloc,
    id_array_job, id_array_task, het_job_id, het_job_offset, deleted, work_dir, submit_line,
    id_resv, id_wckey, state_reason_prev, priority) VALUES
  (101, 0, 0, 2, 'root', 'rootjob', 'debug', 3, 0, 2, 256, 'vm', 1, 5,
   1795975755, 1795975755, 1795975776, '1=2,2=256,4=1,5=2', 0, 4294967294, 0, 4294967294, 0, '/root', 'sbatch x', 0, 0, 0, 1),
  (102, 0, 0, 2, 'root', 'still running', 'debug', 1, 0, 4, 4096, 'node[01-02]', 2, 4294967295,
   1795976000, 1795976010, 0, '1=4,2=4096,4=2,5=4', 0, 4294967294, 0, 4294967294, 0, '/root', 'sbatch y', 0, 0, 0, 1),
  (103, 0, 0, 2, 'root', 'deleted', 'debug', 3, 0, 1, 64, 'vm', 1, 5,
   1795970000, 1795970000, 1795970010, '1=1,2=64,4=1,5=1', 0, 4294967294, 0, 4294967294, 1, '/root', 'sbatch z', 0, 0, 0, 1),
  (201, 424201, 424201, 4, 'research', 'oom', 'debug', 11, 253, 1, 64, 'vm', 1, 10,
   1795977000, 1795977001, 1795977011, '1=1,2=64,4=1,5=1', 0, 4294967294, 0, 4294967294, 0, '/home/pcalice', 'sbatch oom', 0, 0, 0, 1),
  (213, 424201, 424201, 4, 'research', 'arr', 'debug', 3, 0, 1, 100, 'vm', 1, 60,
   1795978000, 1795978005, 1795978065, '1=1,2=100,4=1,5=1', 210, 3, 0, 4294967294, 0, '/home/pcalice', 'sbatch -a 1-3', 0, 0, 0, 1),
  (202, 424201, 424201, 4, 'research', 'gpu', 'gpu', 3, 0, 8, 16384, 'gpu01', 1, 1440,
   1795979000, 1795979100, 1795982700, '1=8,2=16384,4=1,5=10,1001=2,1002=2', 0, 4294967294, 0, 4294967294, 0, '/home/pcalice', 'sbatch g', 0, 0, 0, 1),
  (230, 424201, 424201, 4, 'research', 'het', 'debug', 3, 0, 1, 100, 'vm', 1, 10,
   1795980000, 1795980001, 1795980101, '1=1,2=100,4=1,5=1', 0, 4294967294, 230, 0, 0, '/home/pcalice', 'sbatch het', 0, 0, 0, 1),
  (231, 424201, 424201, 4, 'research', 'het', 'debug', 3, 0, 2, 200, 'vm', 1, 10,
   1795980000, 1795980001, 1795980101, '1=2,2=200,4=1,5=2', 0, 4294967294, 230, 1, 0, '/home/pcalice', 'sbatch het', 0, 0, 0, 1),
  (301, 424202, 424202, 5, 'research', 'cancelme', 'debug', 4, 0, 1, 32, 'vm', 1, 5,
   1795981000, 1795981001, 1795981005, '1=1,2=32,4=1,5=1', 0, 4294967294, 0, 4294967294, 0, '/home/pcbob', 'sbatch c', 0, 0, 0, 1),
  (302, 424202, 424202, 5, 'research', 'slow', 'debug', 6, 0, 1, 32, 'vm', 1, 1,
   1795982000, 1795982001, 1795982061, '1=1,2=32,4=1,5=1', 0, 4294967294, 0, 4294967294, 0, '/home/pcbob', 'sbatch t', 0, 0, 0, 1),
  (304, 424202, 424202, 5, 'research', 'waiting', 'debug', 0, 0, 2, 500, 'None assigned', 0, 30,
   1795983000, 0, 0, '', 0, 4294967294, 0, 4294967294, 0, '/home/pcbob', 'sbatch w', 0, 0, 0, 1);
