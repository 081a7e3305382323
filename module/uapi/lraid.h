/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * lraid control ABI: ioctls on /dev/lraid-control.
 *
 * Rules (see Documentation/abi.rst):
 *  - fixed-width fields only, explicit padding, user pointers as __u64;
 *  - every reserved field and padding must be zero, unknown flags are
 *    rejected with -EINVAL;
 *  - structs grow only by appending; the kernel takes the user's size from
 *    the ioctl number (_IOC_SIZE) and accepts older (shorter) structs and
 *    newer (longer) ones whose extra tail is zero;
 *  - LRAID_IOC_VERSION reports the ABI version and feature bits.
 */
#ifndef _UAPI_LINUX_LRAID_H
#define _UAPI_LINUX_LRAID_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define LRAID_CONTROL_NAME	"lraid-control"

#define LRAID_ABI_MAJOR		1
#define LRAID_ABI_MINOR		5

#define LRAID_MAX_MEMBERS_ABI	32
#define LRAID_MAX_ARRAYS	256

/* Features reported by LRAID_IOC_VERSION. */
#define LRAID_FEAT_RAID5	_BITULL(0)
#define LRAID_FEAT_RAID6	_BITULL(1)
#define LRAID_FEAT_DISCARD	_BITULL(2)
#define LRAID_FEAT_DEGRADED	_BITULL(3)	/* LRAID_IOC_FAIL, degraded I/O */
#define LRAID_FEAT_REBUILD	_BITULL(4)	/* LRAID_IOC_ADD, rebuild (1.3) */
#define LRAID_FEAT_REMOVE	_BITULL(5)	/* LRAID_IOC_REMOVE (1.3) */
#define LRAID_FEAT_BITMAP	_BITULL(6)	/* write-intent bitmap (1.4) */
#define LRAID_FEAT_SPARES	_BITULL(7)	/* spares (1.5) */

struct lraid_ioc_version {
	__u32 major;		/* out: LRAID_ABI_MAJOR */
	__u32 minor;		/* out: LRAID_ABI_MINOR */
	__u64 features;		/* out: LRAID_FEAT_* */
	__u64 reserved[4];	/* in: zero */
};

/* lraid_ioc_create.flags */
#define LRAID_CREATE_ASSUME_CLEAN	_BITUL(0)
#define LRAID_CREATE_BITMAP		_BITUL(1)	/* internal bitmap (1.4) */
#define LRAID_CREATE_FLAGS		(LRAID_CREATE_ASSUME_CLEAN | \
					 LRAID_CREATE_BITMAP)

struct lraid_ioc_create {
	__u32 index;		/* N in /dev/lraidN, < LRAID_MAX_ARRAYS */
	__u32 flags;		/* LRAID_CREATE_* */
	__u8 level;		/* 5 or 6 */
	__u8 nr_members;	/* 3..32 (RAID5), 4..32 (RAID6) */
	__u16 pad0;		/* zero */
	__u32 chunk_bytes;	/* power of two, 4096..1048576 */
	__u64 member_fds;	/* user pointer to __s32[nr_members], role order */
	__u64 data_offset;	/* sectors; 0 selects the default (2048) */
	/*
	 * With LRAID_CREATE_BITMAP (1.4): data per bitmap bit, a power of
	 * two of at least one chunk; 0 selects 64 MiB, or more if the
	 * bitmap room needs it. Zero without the flag.
	 */
	__u64 bitmap_region_bytes;
	__u64 reserved[3];	/* zero */
};

/* lraid_ioc_assemble.flags */
#define LRAID_ASSEMBLE_FORCE		_BITUL(0)	/* stale/failed ones too */
#define LRAID_ASSEMBLE_FLAGS		LRAID_ASSEMBLE_FORCE

struct lraid_ioc_assemble {
	__u32 index;		/* N in /dev/lraidN */
	__u32 flags;		/* LRAID_ASSEMBLE_* */
	__u8 nr_members;	/* number of fds, any order */
	__u8 pad0[7];		/* zero */
	__u64 member_fds;	/* user pointer to __s32[nr_members] */
	__u64 reserved[4];	/* zero */
};

struct lraid_ioc_stop {
	__u32 index;
	__u32 flags;		/* none defined: zero */
	__u64 reserved[2];	/* zero */
};

/* lraid_ioc_member.state */
#define LRAID_MEMBER_ACTIVE	1
#define LRAID_MEMBER_FAULTY	2	/* failed: no I/O is sent to it */
#define LRAID_MEMBER_REBUILDING	3	/* added, being rebuilt: written, not read (1.3) */
#define LRAID_MEMBER_SPARE	4	/* a spare, role LRAID_ROLE_NONE (1.5) */

/* lraid_ioc_member.role of a spare (1.5) */
#define LRAID_ROLE_NONE		0xff

struct lraid_ioc_member {
	__u32 major;		/* dev_t of the member */
	__u32 minor;
	__u8 role;		/* position in the array */
	__u8 state;		/* LRAID_MEMBER_* */
	__u8 pad0[2];
	__u32 read_errors;	/* counted against max_read_errors (1.2) */
	__u64 sectors;		/* size of the member device */
};

/* lraid_ioc_info.state */
#define LRAID_ARRAY_CLEAN	0
#define LRAID_ARRAY_ACTIVE	1

struct lraid_ioc_info {
	__u32 index;		/* in */
	__u32 flags;		/* in: zero */
	__u8 level;		/* out from here on */
	__u8 nr_members;
	__u8 state;		/* LRAID_ARRAY_* */
	/*
	 * Spares (1.5): members[nr_members .. nr_members + nr_spares - 1],
	 * state LRAID_MEMBER_SPARE; nr_members + nr_spares is at most
	 * LRAID_MAX_MEMBERS_ABI. Zero from kernels before 1.5.
	 */
	__u8 nr_spares;
	__u32 chunk_bytes;
	__u64 array_sectors;
	__u64 member_data_sectors;	/* used per member */
	__u64 data_offset;		/* sectors */
	__u64 events;
	__u8 uuid[16];
	__u32 disk_major;
	__u32 disk_minor;
	/* write-intent bitmap (1.4): 0 region sectors when there is none */
	__u64 bitmap_region_sectors;	/* data per bit, member sectors */
	__u32 bitmap_regions;		/* bits in use */
	__u32 bitmap_dirty;		/* of those, set */
	__u64 reserved[2];
	struct lraid_ioc_member members[LRAID_MAX_MEMBERS_ABI];
};

/*
 * Mark one member failed (LRAID_FEAT_DEGRADED). The member is named by its
 * dev_t. Refused with -EBUSY when the array could not survive it (RAID5: a
 * second member, RAID6: a third), -ENODEV when it is not a member.
 */
struct lraid_ioc_fail {
	__u32 index;		/* N in /dev/lraidN */
	__u32 flags;		/* none defined: zero */
	__u32 major;		/* dev_t of the member */
	__u32 minor;
	__u64 reserved[2];	/* zero */
};

/*
 * Add a device to a degraded array in place of a failed or missing role
 * (LRAID_FEAT_REBUILD), as mdadm --add: the lowest such role is rebuilt
 * onto it from the other members while the array serves I/O
 * (sync_action reads "recover"); once the rebuild is done and the
 * superblocks record it, the role is active again. The device is passed
 * as a file descriptor; it may be the failed member itself. Refused with
 * -EBUSY when the device is in use, -ENOSPC when it is too small for the
 * data area.
 *
 * Spares (LRAID_FEAT_SPARES, 1.5): a device added to an array with no
 * failed or missing role, or while a pass (check, repair, resync,
 * rebuild) runs, is kept as a spare: its superblock names the array and
 * no role, and when a role fails (or the pass ends with one failed) the
 * array rebuilds it onto the spare by itself. -ENOSPC when the array has
 * nr_members + spares = LRAID_MAX_MEMBERS_ABI already. Before 1.5 these
 * adds were refused with -EBUSY.
 */
/*
 * lraid_ioc_add.flags (1.4): the device must be a re-add, a member of this
 * array that left it in sync, recently enough that the write-intent bitmap
 * records every write it missed; refused with -ESTALE otherwise (mdadm
 * --re-add). Without the flag an add re-adds such a device by itself and
 * rebuilds any other in full.
 */
#define LRAID_ADD_READD		_BITUL(0)
#define LRAID_ADD_FLAGS		LRAID_ADD_READD

struct lraid_ioc_add {
	__u32 index;		/* N in /dev/lraidN */
	__u32 flags;		/* LRAID_ADD_* */
	__s32 fd;		/* open file descriptor of the block device */
	__u32 pad0;		/* zero */
	__u64 reserved[2];	/* zero */
};

/*
 * Close a failed member (LRAID_FEAT_REMOVE), as mdadm --remove: its role
 * stays failed, now missing, and the device is free for other use. The
 * member is named by its dev_t. Refused with -EBUSY when it has not
 * failed or its rebuild runs (write idle to sync_action first), -ENODEV
 * when it is not a member. A spare (1.5) is removed at once, its
 * superblock erased, so that no later assemble takes it back.
 */
struct lraid_ioc_remove {
	__u32 index;		/* N in /dev/lraidN */
	__u32 flags;		/* none defined: zero */
	__u32 major;		/* dev_t of the member */
	__u32 minor;
	__u64 reserved[2];	/* zero */
};

#define LRAID_IOC_MAGIC		0xA7

#define LRAID_IOC_VERSION	_IOWR(LRAID_IOC_MAGIC, 0x00, struct lraid_ioc_version)
#define LRAID_IOC_CREATE	_IOW(LRAID_IOC_MAGIC, 0x01, struct lraid_ioc_create)
#define LRAID_IOC_ASSEMBLE	_IOW(LRAID_IOC_MAGIC, 0x02, struct lraid_ioc_assemble)
#define LRAID_IOC_STOP		_IOW(LRAID_IOC_MAGIC, 0x03, struct lraid_ioc_stop)
#define LRAID_IOC_INFO		_IOWR(LRAID_IOC_MAGIC, 0x04, struct lraid_ioc_info)
#define LRAID_IOC_FAIL		_IOW(LRAID_IOC_MAGIC, 0x05, struct lraid_ioc_fail)
#define LRAID_IOC_ADD		_IOW(LRAID_IOC_MAGIC, 0x06, struct lraid_ioc_add)
#define LRAID_IOC_REMOVE	_IOW(LRAID_IOC_MAGIC, 0x07, struct lraid_ioc_remove)

#endif /* _UAPI_LINUX_LRAID_H */
