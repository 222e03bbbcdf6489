// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * conformance-testfs: the conformance scenarios that make sense on a
 * filesystem of the embedder's, run with their root on tests/testfs
 * (backend_uvfs.c, UVFS_CONF_FS) against the host's tmpfs.
 *
 * Left out: what testfs does not do (mknod, RENAME_EXCHANGE and
 * RENAME_WHITEOUT, O_TMPFILE, hard links to directories' counts as tmpfs
 * keeps them), the attribute changes it is never told of (chmod, chown,
 * utimensat: its getattr answers its own), timestamps (it keeps its own),
 * the directory sizes and st_blocks that are tmpfs's own accounting, and
 * the seals of files made by name (memfd_seals_path_file: only tmpfs has
 * them; the memfd_ scenarios run, a memfd is on an internal tmpfs), and
 * what reads a cwd outside the proc's root (chroot_jail, proc_fs_state,
 * mount_pivot_root_jailed): uvfs names it by its path in the instance, where
 * the scenario's root is a chroot into the testfs mount.
 */
#include "on_fs.h"

static const char *const selection[] = {
	"inotify_two_name[s]", "inotify_mount[s]", "inotify_proc[s]", "inotify_failed_op[s]",
	"inotify_init_flag[s]", "inotify_add_watch_error[s]", "inotify_wd_number[s]",
	"inotify_file_event[s]", "inotify_attr_event[s]", "inotify_parent_and_chil[d]",
	"inotify_unlink_ope[n]", "inotify_many_instance[s]", "inotify_merg[e]", "inotify_overflo[w]",
	"inotify_onesho[t]", "inotify_mask_add_creat[e]", "inotify_excl_unlin[k]", "inotify_symlink[s]",
	"inotify_read_size[s]", "inotify_delete_sel[f]", "inotify_rm_watch_and_clos[e]", "inotify_pol[l]",
	"inotify_unmoun[t]", "inotify_du[p]", "open_creat_exc[l]", "open_creat_mod[e]", "open_appen[d]",
	"open_directory_fla[g]", "open_nofollo[w]", "open_cloexe[c]", "open_error[s]", "rw_bad_fd[s]",
	"readv_write[v]", "lseek_whenc[e]", "fsync_call[s]", "dup_call[s]", "fcntl_dupf[d]",
	"fcntl_setf[l]", "close_lowest_f[d]", "close_range_call[s]", "emfile_limi[t]",
	"efault_null_path[s]", "efault_null_buffer[s]", "rw_edge_case[s]", "unterminated_pat[h]",
	"fd_allocation_word[s]", "fork_fd_tabl[e]", "thread_fd_tabl[e]", "proc_exit_closes_file[s]",
	"mkdir_basi[c]", "rmdir_case[s]", "symlink_loop[s]", "rename_file[s]", "rename_dir[s]",
	"dot_dotdo[t]", "name_too_long_orde[r]", "name_ma[x]", "name_max_re[l]", "path_ma[x]",
	"lookup_errors_precedenc[e]", "getdents_small_buffe[r]", "getdents_offsets_stabl[e]",
	"getdents_removed_di[r]", "dir_nlin[k]", "chdir_getcw[d]", "chroot_per[m]", "proc_cred[s]",
	"perm_file_r[w]", "sticky_di[r]", "access_check[s]", "noatime_per[m]", "perm_rename_di[r]",
	"perm_group_classe[s]", "perm_checked_at_ope[n]", "mount_basi[c]", "mount_error[s]",
	"remount_ro_writer[s]", "mount_exde[v]", "umount_bus[y]", "mount_rdonl[y]", "bind_mount[s]",
	"bind_rec_below_itsel[f]", "mount_stackin[g]", "mount_option[s]", "mount_flag[s]",
	"mount_over_roo[t]", "mountpoint_identit[y]", "mount_propagatio[n]", "mount_mov[e]",
	"mount_pivot_roo[t]", "resolve_beneat[h]", "resolve_in_roo[t]",
	"resolve_no_symlink[s]", "resolve_no_xde[v]", "create_through_link[s]", "create_link_limi[t]",
	"pipe_reope[n]", "pipe_capacity_byte[s]", "pipe_capacity_size[s]", "pipe_merg[e]",
	"pipe_atomi[c]", "pipe_writev_atomi[c]", "pipe_eo[f]", "pipe_epip[e]", "pipe_eagai[n]",
	"pipe_flag[s]", "pipe_packe[t]", "pipe_sets[z]", "pipe_setsz_use[r]", "ioctl_fionrea[d]",
	"poll_pip[e]", "poll_man[y]", "fz_remount_resets_mount_flag[s]", "fz_remount_ro_removed_hel[d]",
	"fz_mount_on_to[p]", "fz_linkat_empty_path_relativ[e]", "fz_linkat_empty_cw[d]",
	"fz_rename_orde[r]", "fz_odirec[t]", "fz_bind_empty_sourc[e]", "fz_creat_excl_dot[s]",
	"fz_lseek_whence_firs[t]", "fz_setattr_pseud[o]", "fz_rbind_below_sourc[e]",
	"fz_mount_lookup_before_eper[m]", "fz_odirect_dir_close_even[t]", "preadv_pwritev_basi[c]",
	"pwritev2_append_flag[s]", "preadv2_flag[s]", "rw2_pipe[s]", "readahead_call[s]", "sync_call[s]",
	"memfd_create_arg[s]", "memfd_plain_fil[e]", "memfd_seals_sequenc[e]", "memfd_seal_future_writ[e]",
	"memfd_seal_grow_page[s]", "memfd_seal_transfer[s]", "memfd_seal_exe[c]", "memfd_seal_fd_kind[s]",
	"memfd_proc[s]", "pseudo_fd_call[s]",
};

const struct on_fs on_fs = { .fs = "testfs", .selection = ON_FS_LIST(selection) };
