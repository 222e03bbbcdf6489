// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * conformance-overlay: the conformance scenarios with each one's root an
 * overlay (UVFS_CONF_FS=overlay, overlay_root.h): a lower layer with a few
 * entries, an empty upper one, on the host the kernel's overlayfs of the
 * same layers in the sandbox's private namespace.
 *
 * Left out (each fails, for the reason given; docs/ARCHITECTURE.md):
 *   - overlay_*: they mount an overlay of layers inside this one; both
 *     refuse an upper layer on an overlay (EINVAL), but the layers the
 *     scenarios then dump differ between the two (not analysed yet);
 *   - none of the readdir_ scenarios now: they read directories they make,
 *     which have one layer and are read through to the real directory as
 *     on Linux (readdir.c).  A merged directory's names made or renamed
 *     while it is read still differ (Linux's cache is the directory's and
 *     is refreshed by version; this one is the open file's, read at the
 *     first getdents and after a rewind);
 *   - inotify_wd_numbers, inotify_unlink_open, inotify_rename,
 *     fallocate_events, copy_fifo_and_events: events (and inodes) of the
 *     real objects: each lookup makes its own overlay inode, so watches
 *     of two names of one object, or of an object before and after its
 *     copy-up, are not Linux's;
 *   - fifo_*, times_on_io, symlink_corner_cases, fallocate_times: atime
 *     and the other times moved by reads of FIFOs, symlinks and files, which
 *     Linux takes from the real object at each access;
 *   - memfd_seals_path_file: the seals of files made by name, which only
 *     tmpfs has (an overlay's file answers F_GET_SEALS with EINVAL, on
 *     Linux too); the other memfd_ scenarios run (a memfd is on an internal
 *     tmpfs whatever the root is).
 */
#include "on_fs.h"

static const char *const selection[] = {
	"inotify_two_name[s]", "inotify_mis[c]", "inotify_mount[s]", "inotify_proc[s]",
	"inotify_failed_op[s]", "inotify_rename_mor[e]", "inotify_fif[o]", "inotify_init_flag[s]",
	"inotify_add_watch_error[s]", "inotify_file_event[s]", "inotify_attr_event[s]",
	"inotify_dir_childre[n]", "inotify_parent_and_chil[d]", "inotify_many_instance[s]",
	"inotify_merg[e]", "inotify_overflo[w]", "inotify_onesho[t]", "inotify_mask_add_creat[e]",
	"inotify_excl_unlin[k]", "inotify_symlink[s]", "inotify_read_size[s]", "inotify_delete_sel[f]",
	"inotify_rm_watch_and_clos[e]", "inotify_pol[l]", "inotify_unmoun[t]", "inotify_open_variant[s]",
	"inotify_du[p]", "open_creat_exc[l]", "open_creat_mod[e]", "open_trun[c]", "open_appen[d]",
	"open_directory_fla[g]", "open_nofollo[w]", "open_pat[h]", "open_cloexe[c]", "open_tmpfil[e]",
	"open_error[s]", "read_write_basi[c]", "rw_bad_fd[s]", "pread_pwrit[e]", "readv_write[v]",
	"lseek_whenc[e]", "sparse_fil[e]", "ftruncate_grow_shrin[k]", "truncate_pat[h]", "fsync_call[s]",
	"dup_call[s]", "fcntl_dupf[d]", "fcntl_setf[l]", "close_lowest_f[d]", "close_range_call[s]",
	"emfile_limi[t]", "unlinked_open_fil[e]", "fd_reopen_call[s]", "efault_null_path[s]",
	"efault_null_buffer[s]", "large_i[o]", "rw_edge_case[s]", "fifo_i[o]", "tmpfile_use[r]",
	"bad_argument[s]", "unterminated_pat[h]", "fd_allocation_word[s]", "getdents_large_di[r]",
	"huge_offset[s]", "fork_fd_tabl[e]", "thread_fd_tabl[e]", "proc_exit_closes_file[s]",
	"mkdir_basi[c]", "rmdir_case[s]", "unlink_case[s]", "link_case[s]", "symlink_case[s]",
	"symlink_loop[s]", "rename_file[s]", "rename_dir[s]", "rename_flag[s]", "rename_whiteou[t]",
	"rename_time[s]", "dot_dotdo[t]", "trailing_slashe[s]", "name_too_long_orde[r]", "name_ma[x]",
	"name_max_re[l]", "path_ma[x]", "mknod_type[s]", "rename_over_busy_dir[s]",
	"lookup_errors_precedenc[e]", "dcache_coherenc[e]", "stat_type[s]", "dir_size[s]",
	"statx_field[s]", "chmod_call[s]", "chown_roo[t]", "utimensat_call[s]", "statfs_call[s]",
	"umask_call[s]", "access_symlink[s]", "time_relation[s]", "stamps_after_sta[t]", "getdents_basi[c]",
	"getdents_small_buffe[r]", "getdents_removed_di[r]", "dir_nlin[k]", "chdir_getcw[d]",
	"chroot_jai[l]", "chroot_per[m]", "proc_fs_stat[e]", "proc_cred[s]", "readdir_rename_ove[r]",
	"readdir_whiteout_subdi[r]", "perm_file_r[w]", "perm_dir_searc[h]", "perm_root_overrid[e]",
	"sticky_di[r]", "chmod_rule[s]", "chown_rule[s]", "setgid_inheri[t]", "utimens_perm[s]",
	"access_check[s]", "noatime_per[m]", "perm_rename_di[r]", "perm_setcred_id[s]",
	"perm_group_classe[s]", "perm_checked_at_ope[n]", "mount_basi[c]", "mount_error[s]",
	"remount_ro_writer[s]", "umount_expir[e]", "mount_exde[v]", "umount_bus[y]", "mount_rdonl[y]",
	"bind_mount[s]", "bind_rec_below_itsel[f]", "mount_stackin[g]", "mount_option[s]",
	"mount_flag[s]", "mount_over_roo[t]", "mountpoint_identit[y]", "remount_option[s]",
	"openat2_how_check[s]", "resolve_beneat[h]", "resolve_in_roo[t]", "resolve_no_symlink[s]",
	"resolve_no_xde[v]", "resolve_cache[d]", "create_through_link[s]", "create_link_limi[t]",
	"pipe_reope[n]", "pipe_capacity_byte[s]", "pipe_capacity_size[s]", "pipe_merg[e]",
	"pipe_atomi[c]", "pipe_writev_atomi[c]", "pipe_eo[f]", "pipe_epip[e]", "pipe_eagai[n]",
	"pipe_flag[s]", "pipe_packe[t]", "pipe_sets[z]", "pipe_setsz_use[r]", "ioctl_fionrea[d]",
	"fifo_open_rule[s]", "fifo_perm[s]", "poll_pip[e]", "poll_man[y]", "poll_fif[o]",
	"fz_access_rdonly_mount_orde[r]", "fz_remount_resets_mount_flag[s]",
	"fz_remount_ro_removed_hel[d]", "fz_mount_on_to[p]", "fz_linkat_empty_path_relativ[e]",
	"fz_seek_data_huge_hol[e]", "fz_linkat_empty_cw[d]", "fz_write_zero_keeps_sgi[d]",
	"fz_creat_sticky_symlin[k]", "fz_rename_orde[r]", "fz_odirec[t]", "fz_bind_empty_sourc[e]",
	"fz_open_path_flag[s]", "fz_creat_excl_dot[s]", "fz_lseek_whence_firs[t]", "fz_setattr_pseud[o]",
	"fz_rbind_below_sourc[e]", "fz_mount_lookup_before_eper[m]", "fz_whiteout_owne[r]",
	"fz_odirect_dir_close_even[t]", "cred_access_real_ui[d]", "cred_access_real_roo[t]",
	"cred_access_real_gi[d]", "cred_setres_rule[s]", "xattr_fd_perm[s]", "xattr_user_basi[c]",
	"xattr_flag[s]", "xattr_limit[s]", "xattr_namespace[s]", "xattr_file_type[s]", "xattr_nonroo[t]",
	"xattr_fd[s]", "xattr_event[s]", "xattr_enosp[c]", "xattr_rof[s]", "fallocate_fsx_[1]",
	"fallocate_fsx_[2]", "fallocate_fsx_[3]", "fallocate_fsx_[4]", "fallocate_fsx_[5]",
	"fallocate_fsx_[6]", "fallocate_error[s]", "fallocate_allocat[e]", "fallocate_punc[h]",
	"fallocate_nospac[e]", "seek_data_hol[e]", "copy_nospac[e]", "copy_range_error[s]",
	"copy_range_dat[a]", "sendfile_call[s]", "splice_error[s]", "splice_dat[a]", "tee_dat[a]",
	"epoll_create_flag[s]", "epoll_ctl_error[s]", "epoll_exclusive_rule[s]", "epoll_wait_error[s]",
	"epoll_lt_pip[e]", "epoll_et_pip[e]", "epoll_onesho[t]", "epoll_hup_er[r]", "epoll_orde[r]",
	"epoll_releas[e]", "epoll_fif[o]", "epoll_inotif[y]", "epoll_neste[d]", "epoll_nest_dept[h]",
	"epoll_polle[d]", "epoll_for[k]", "flock_error[s]", "flock_open_fil[e]", "flock_conver[t]",
	"flock_type[s]", "flock_proc[s]", "posix_lock_error[s]", "posix_lock_split_merg[e]",
	"posix_lock_conflict[s]", "posix_lock_getlk_orde[r]", "posix_lock_close_release[s]",
	"posix_lock_thread[s]", "posix_lock_type[s]", "ofd_lock_basi[c]", "ofd_lock_proc[s]",
	"overlay_readonl[y]", "preadv_pwritev_basi[c]", "pwritev2_append_flag[s]", "preadv2_flag[s]",
	"rw2_pipe[s]", "rw2_event[s]", "fadvise_call[s]", "readahead_call[s]", "sync_call[s]",
	"fsflags_set_ge[t]", "fsflags_ro_moun[t]", "fsflags_immutable_fil[e]", "fsflags_append_fil[e]",
	"fsflags_dir[s]", "fsflags_noatime_event[s]", "fsflags_fsxatt[r]",
	"acl_set_ge[t]", "acl_equi[v]", "acl_chmo[d]", "acl_invali[d]", "acl_owne[r]",
	"acl_permissio[n]", "acl_searc[h]", "acl_inheri[t]", "acl_event[s]", "acl_renam[e]",
	"memfd_create_arg[s]", "memfd_plain_fil[e]", "memfd_seals_sequenc[e]", "memfd_seal_future_writ[e]",
	"memfd_seal_grow_page[s]", "memfd_seal_transfer[s]", "memfd_seal_exe[c]", "memfd_seal_fd_kind[s]",
	"memfd_proc[s]", "pseudo_fd_call[s]", "fz_memfd_odirec[t]", "fz_sendfile_zero_check[s]",
	"fz_link_into_dead_cw[d]", "fz_reopen_like_pro[c]", "fz_getcwd_removed_bind_roo[t]",
	"fz_statx_masks_pseud[o]", "fz_splice_clears_nowai[t]", "fz_rename_same_object_flag[s]",
	"fz_openat2_flags_and_scop[e]", "fz_bind_removed_sourc[e]",
	"fz_mount_on_detache[d]", "fz_xattr_private_inode[s]",
	"fz_fallocate_privs_orde[r]", "fz_acl_set_orde[r]", "fz_copy_range_xdev_firs[t]",
	"fz_dotdot_in_root_no_xde[v]", "xattr_capability_value[s]", "fz_umount_own_roo[t]",
	"fz_sgid_strip_before_umas[k]", "fz_trunc_same_size_drops_reserve[d]", "mount_propagatio[n]", "mount_mov[e]",
	"mount_pivot_roo[t]", "mount_pivot_root_jaile[d]",
	/* directories of one layer, read through to the real one (readdir.c) */
	"getdents_offsets_stabl[e]", "readdir_rename_returne[d]", "readdir_rename_unreturne[d]",
	"readdir_rename_in_ou[t]", "readdir_create_durin[g]", "readdir_exchang[e]", "readdir_seek_offset[s]",
	"readdir_rename_eac[h]", "readdir_next_name_change[s]", "readdir_copy_up_rewin[d]",
	"readdir_impure_throug[h]",
};

const struct on_fs on_fs = { .fs = "overlay", .selection = ON_FS_LIST(selection) };
