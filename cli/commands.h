/* Subcommands of the scankd CLI. Each takes the arguments after its name
 * (argv[0] is the subcommand) and returns an exit code: 0 success,
 * 1 failure, 2 usage error. */
#ifndef KD_COMMANDS_H
#define KD_COMMANDS_H

int kd_cmd_info(int argc, char **argv);
int kd_cmd_build(int argc, char **argv);
int kd_cmd_render(int argc, char **argv);
int kd_cmd_verify(int argc, char **argv);
int kd_cmd_stats(int argc, char **argv);
int kd_cmd_bench(int argc, char **argv);
int kd_cmd_profile(int argc, char **argv);
int kd_cmd_demo(int argc, char **argv);

/* render and verify with their messages labelled "scankd <label>:" (the
 * demo runs them as "demo"). */
int kd_cmd_render_as(const char *label, int argc, char **argv);
int kd_cmd_verify_as(const char *label, int argc, char **argv);

#endif
