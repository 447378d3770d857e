// Package pins is the table of Apache Kafka release artifacts that
// cmd/kwire-specgen bundles into package github.com/kwire/kwire/spec/bundle.
//
// It is a package of its own, with no embedded data, so that the generator
// can be built even when no bundle exists yet.
package pins

import "strings"

// MavenRepository is the base URL of the Maven repository that the pinned
// artifacts are downloaded from (Maven Central).
const MavenRepository = "https://repo.maven.apache.org/maven2"

// specDirs are the jar directories whose *.json entries are bundled.
var specDirs = []string{"common/message/", "common/metadata/"}

// artifactSpecDirs are the spec directories of the artifacts that keep
// their spec files elsewhere: kafka-storage has its remote-log-metadata
// records and ProducerSnapshot under message/.
var artifactSpecDirs = map[string][]string{
	"kafka-storage": {"message/"},
}

// SpecDirs returns the directories, inside the pinned jars other than
// kafka-storage, whose *.json entries are Kafka message specification
// files and are copied into the bundles: "common/message/" and
// "common/metadata/". See Pin.SpecDirs for one artifact's.
func SpecDirs() []string {
	return append([]string(nil), specDirs...)
}

// SpecDirs returns the directories, inside the jar p, whose *.json entries
// are bundled: "message/" for kafka-storage, else SpecDirs().
func (p Pin) SpecDirs() []string {
	if d, ok := artifactSpecDirs[p.ArtifactID]; ok {
		return append([]string(nil), d...)
	}
	return SpecDirs()
}

// Pin is one pinned Maven artifact: a jar of an Apache Kafka release, with the
// SHA-256 digest its download must have.
type Pin struct {
	// Release is the Apache Kafka release version, e.g. "4.4.0".
	Release string
	// GroupID is the Maven group, e.g. "org.apache.kafka".
	GroupID string
	// ArtifactID is the Maven artifact, e.g. "kafka-clients".
	ArtifactID string
	// SHA256 is the lower-case hex SHA-256 digest of the jar.
	SHA256 string
}

// table is the single source of truth for what kwire-specgen bundles. Keep it
// sorted by release (newest first), then artifact.
//
// The internal topics' record specs are pinned for every release whose
// jars on Maven Central hold them: kafka-group-coordinator
// (__consumer_offsets; from 3.5, its 3.4 jar holds no spec file),
// kafka-transaction-coordinator (__transaction_state; from 3.9, its 3.8 jar
// holds none), kafka-share-coordinator (__share_group_state; first
// published for 4.0) and kafka-storage (__remote_log_metadata records, from
// 3.0; ProducerSnapshot from 4.0 on). Before those, the group and
// transaction records' specs are in the broker jar, kafka_2.13 (its only
// spec files: OffsetCommit*, GroupMetadata* and TransactionLog* up to 3.4,
// TransactionLog* in 3.5 to 3.8; none from 3.9). 3.x's and 4.0's group,
// transaction and share records are "data" specs whose versions are their
// record types.
var table = []Pin{
	{"4.4.0", "org.apache.kafka", "kafka-clients", "1ab07317eb6633241392449d329dbdc5d9251e6ffc4926860f42dd966e88bdf9"},
	{"4.4.0", "org.apache.kafka", "kafka-group-coordinator", "3fc830ace54f6a13f9f536bc0564bf39a68797365a4c4b194bd7db4fb893b2bc"},
	{"4.4.0", "org.apache.kafka", "kafka-metadata", "6c52de74ecd670332e1e1324f5d40311275ac49b22699b6722e5fb07dd266fcb"},
	{"4.4.0", "org.apache.kafka", "kafka-raft", "687f278ce5d82b7f53644643e21e1a7452530f202826108990f0fe4f3d334d4f"},
	{"4.4.0", "org.apache.kafka", "kafka-share-coordinator", "6969a7961ca98d37a039bbe0af0fe761d6b0dd07ca9666802f47821167afbb6e"},
	{"4.4.0", "org.apache.kafka", "kafka-storage", "9eaa4dafacc251080ece0efa8511283da5de6931e843457f6af87f02f9b50039"},
	{"4.4.0", "org.apache.kafka", "kafka-transaction-coordinator", "1d5324d59776d6b7f324cfdc87647b1e88f9823332201c0324e7ae9f210d915d"},
	{"4.3.2", "org.apache.kafka", "kafka-clients", "edaf0818414a61a98d1d2e58d6966be8c9f780cef6ded2ffbab10dd841b2bfb8"},
	{"4.3.2", "org.apache.kafka", "kafka-group-coordinator", "fdf2d82bc2962d24b808d78d974cef2dfe86458d1b5e8ff30b12bbd32ea61120"},
	{"4.3.2", "org.apache.kafka", "kafka-metadata", "fa94bb57d04361ea2f0575784318eeb6168d8ef8f0d0cedf68f4dc4ac13c55b8"},
	{"4.3.2", "org.apache.kafka", "kafka-raft", "61fa68d45830b0b7200f4e2983cd745eb68a30c7ca1f389cd9766dc82b8416d0"},
	{"4.3.2", "org.apache.kafka", "kafka-share-coordinator", "66ac08e97ea2d4e0004ef9fa588dd9d544cd14e2519277d8b8037f9a59aabf10"},
	{"4.3.2", "org.apache.kafka", "kafka-storage", "6b0db79bf43bd3f13f5aed06d9bdc7f7297bca032157de9e02e38b2a2bdc34fc"},
	{"4.3.2", "org.apache.kafka", "kafka-transaction-coordinator", "45c232f594fefe246e62b92d13cc434a7541cc1f2b4f6adc58674887586c5346"},
	{"4.2.2", "org.apache.kafka", "kafka-clients", "109b6c65c134fd65a424563c8377510f4d42e278e9fef0961d0450173e65496a"},
	{"4.2.2", "org.apache.kafka", "kafka-group-coordinator", "755209e172e973985956f518f55a9cc8c3773e74acc17b0a9f0df83c7924c3f0"},
	{"4.2.2", "org.apache.kafka", "kafka-metadata", "6f0d379786284d95b5f940ade40b643a2b002b745aa63da19af1f5c05ef0e27c"},
	{"4.2.2", "org.apache.kafka", "kafka-raft", "4e16228752bee90bd74c9fffc97ec7dbfbd35a9306c1794b2ed6470d37eb75e5"},
	{"4.2.2", "org.apache.kafka", "kafka-share-coordinator", "26e7749621607cbe079db3f7a9063cc37f2623d2830531cd175c4d9d3064b4c7"},
	{"4.2.2", "org.apache.kafka", "kafka-storage", "d92fd95e42fac5f6d7fda3e1272fea8f532e0bdc36f0dbe986f42ec7417660b3"},
	{"4.2.2", "org.apache.kafka", "kafka-transaction-coordinator", "8ee820639e6f934bb00d45482456bf2ff36ab9a068eb3de8e1de2eb91b3f2806"},
	{"4.1.2", "org.apache.kafka", "kafka-clients", "afe861c05067f4018a3148d73c1ed1e5fc90808757c15b043527d7e535a5d431"},
	{"4.1.2", "org.apache.kafka", "kafka-group-coordinator", "1925a002ef7c527b72a0877ed0d9f3a5f88a08d130d1ed2bdfcc40457ded354b"},
	{"4.1.2", "org.apache.kafka", "kafka-metadata", "ccc29f5423cf5fbe63b47871dbce00a16e05a38bd0d531b3bf21e5c71ba54fac"},
	{"4.1.2", "org.apache.kafka", "kafka-raft", "01f6717d07472b577a1cfe1cdf4d098b14a1dae4e35574164712801bd2a55cce"},
	{"4.1.2", "org.apache.kafka", "kafka-share-coordinator", "fffacfaa46e7f25696f673035f86669422ae81889dfd28d8fec29500ee888310"},
	{"4.1.2", "org.apache.kafka", "kafka-storage", "902a08f775a9957e1546ecec8e22fbda73b84be9dfbdf04cce7a023dd60bf8b9"},
	{"4.1.2", "org.apache.kafka", "kafka-transaction-coordinator", "20939d46e1e65a34d6a59b447f0a5e63721678abbfdc948a5f9422930d71612c"},
	{"4.0.2", "org.apache.kafka", "kafka-clients", "902bf4749ad601b7f272a0f3385a781f44750121a54abe52b7495be4de8f977f"},
	{"4.0.2", "org.apache.kafka", "kafka-group-coordinator", "3a8b06a3c39dc16d71159d23229db93ffad7dd88528f1492682704d13fa438fd"},
	{"4.0.2", "org.apache.kafka", "kafka-metadata", "888533a2c26a846d187dd8d8893215dfacba56f56c98c745b7c908fe94969512"},
	{"4.0.2", "org.apache.kafka", "kafka-raft", "7039e4000f7e1614198f24c3b8d0a95b4d3f477c36199c233974fae1472adee3"},
	{"4.0.2", "org.apache.kafka", "kafka-share-coordinator", "c1442d3d38b82f9dd3be3c47b3793c317cb59753c2610f0933f43bc4a4b266f3"},
	{"4.0.2", "org.apache.kafka", "kafka-storage", "4face93bd4ba18465077bea5164c88a94d710a48e24b216ac473c347fea95da3"},
	{"4.0.2", "org.apache.kafka", "kafka-transaction-coordinator", "505a9a595b29bd9defa20ffa562367331f6aefc69fe2d895b4176bed59188b5c"},
	{"3.9.2", "org.apache.kafka", "kafka-clients", "014b4ef36884478a932641818b080c36a8f8e2e92dc771e800c9d2694f4f83d8"},
	{"3.9.2", "org.apache.kafka", "kafka-group-coordinator", "d4d57f0955895cc38381f346f5ff7eba487afafa5ba264804af18393305b32fd"},
	{"3.9.2", "org.apache.kafka", "kafka-metadata", "ffe970aee12f00df4b0162f31c719df7c412f9207c166a74cef6611be25a255e"},
	{"3.9.2", "org.apache.kafka", "kafka-raft", "f897533828e55ac466a5b183a25dccbe5a7b97c02162dac38e25338feddfe422"},
	{"3.9.2", "org.apache.kafka", "kafka-storage", "8a3d7b67dfcd34b1334d4994ed4106ba9c9b37ebcbb177ac47ff44050e8ab84b"},
	{"3.9.2", "org.apache.kafka", "kafka-transaction-coordinator", "d6ca25648111dfd11f76d3d0f7f51a9458784b645f4e56ce34fbc58d9c9d0296"},
	{"3.9.1", "org.apache.kafka", "kafka-clients", "7568b998572d256f0b7bc0afdc1b7a2588b8b08415c62ce314c864a6851ae9d9"},
	{"3.9.1", "org.apache.kafka", "kafka-group-coordinator", "fd30310533df51b17d14beb8eb8c9006a9ebb90b536c319776429e413f622a69"},
	{"3.9.1", "org.apache.kafka", "kafka-metadata", "35c35118d4abb0b747ad68d1e0be00d5bd02206b462ad76ebbcd85b33436f13a"},
	{"3.9.1", "org.apache.kafka", "kafka-raft", "0d4236cf868f8668c74c49bec4bed41e400bb13d6d381a0f8e9843585b2f159f"},
	{"3.9.1", "org.apache.kafka", "kafka-storage", "a3041e6192a37e5508519d776f8af93b74d3fd23174b03e270c0394f1c77b59f"},
	{"3.9.1", "org.apache.kafka", "kafka-transaction-coordinator", "45b852f2e6e501d4dbdd43b97c4057e6cb6827b76e5aabcffcae8b8e2918554f"},
	{"3.8.1", "org.apache.kafka", "kafka-clients", "d6d8c4ad7ab00c6adb03ad9ad7188af32fa7c5de62ca1d8625e086512987a584"},
	{"3.8.1", "org.apache.kafka", "kafka-group-coordinator", "f02ac90bba54146bc86de8e80c0b4066696ed1a6c04efc74fec0d98bb3b89744"},
	{"3.8.1", "org.apache.kafka", "kafka-metadata", "b6d6abc6bfb79c6143499161e41ba9c235b24719133b0062a8b146bdb18ba0d5"},
	{"3.8.1", "org.apache.kafka", "kafka-raft", "f125097d7a2792a7ab8bad72546b124bde730808f684ad05576bf80cae1d9e9f"},
	{"3.8.1", "org.apache.kafka", "kafka-storage", "f45af7ed9e16b1b76d0f717ba4b198eb59a145cc1fc2df937b33aacde7840f8c"},
	{"3.8.1", "org.apache.kafka", "kafka_2.13", "14b681b003a928688440c82f8d267cebec0cf904fe87d9bb26b52db16ab41d1c"},
	{"3.7.2", "org.apache.kafka", "kafka-clients", "caac34d6f3e441621533e27ddd7e5fe9c316b048e21b7673a94235dec8a55bed"},
	{"3.7.2", "org.apache.kafka", "kafka-group-coordinator", "8307ee0b4a1782c80707a5e3d3507dfd5a429c4ae95ca83d12034f3028435779"},
	{"3.7.2", "org.apache.kafka", "kafka-metadata", "fb6074699cfd6b698c7dccc15531715bdbba16a9e9ec1f509e170e7e3e8495a8"},
	{"3.7.2", "org.apache.kafka", "kafka-raft", "097d6b4a4fba9d907596eb90ac6d7c4ad2211a0593fced1e13d465ed9869a6b8"},
	{"3.7.2", "org.apache.kafka", "kafka-storage", "12df6c5490fbf612a24c62e5f38ba201cbbb97f0c1fe9a5b0b87d30937bd1cc1"},
	{"3.7.2", "org.apache.kafka", "kafka_2.13", "8b0b9d6d43f100b028782e6815bbf36065550d19f4b1975b58d946f4187f41ac"},
	{"3.6.2", "org.apache.kafka", "kafka-clients", "91f7cc26498fc11f4adfe4ada8229fc7cfbe991aef25ed583a92c78d6310de90"},
	{"3.6.2", "org.apache.kafka", "kafka-group-coordinator", "2b4962460213ee0d95d70a8bbd6b97a1cf18f3e383f5a5169d530c9041208fae"},
	{"3.6.2", "org.apache.kafka", "kafka-metadata", "96376c982c7437c0221eca4482318b3f35dbac2d7802a14d9aae782770ab2c13"},
	{"3.6.2", "org.apache.kafka", "kafka-raft", "aee760e2645d0c2e1b4b52b86a082ccb25a8b08a2db9da183463a04aa5eec47c"},
	{"3.6.2", "org.apache.kafka", "kafka-storage", "fee107617e3d587ad81a3c8e75b1c06eb2852f9a28d4dd5c9bd53ea9116cd6de"},
	{"3.6.2", "org.apache.kafka", "kafka_2.13", "9e7db9d1db981c8c37a234c2031dfc5b96b3173b3323b4c818436db0b757833f"},
	{"3.5.2", "org.apache.kafka", "kafka-clients", "c18079128aecd6d29453fbe2aa4523a91802ac846648082ed4daca3951a53c17"},
	{"3.5.2", "org.apache.kafka", "kafka-group-coordinator", "babeeaf8565bbe23b2b9f568cb1d6f539adbfe09e43edf2b4154f1480a4438c7"},
	{"3.5.2", "org.apache.kafka", "kafka-metadata", "edaf88b7911e9cdc205d6c6280a97a3d2923f3c798c97d0da299ad31f42528f8"},
	{"3.5.2", "org.apache.kafka", "kafka-raft", "1526a9f250712ee8a4fba4d86ee126a835e748c1df9660b52c2529600a36079a"},
	{"3.5.2", "org.apache.kafka", "kafka-storage", "5b0f91b7a838306ddcf3575ca91da9d4e42d2b73f79c189b7caf3f30f2ec5d8b"},
	{"3.5.2", "org.apache.kafka", "kafka_2.13", "aea63003f6ff2a494f8c0a7b3a0210685c021f6e20dffa2c005d1e974682bcea"},
	{"3.4.1", "org.apache.kafka", "kafka-clients", "9d0a9058c8ede79db6e54ae378ed16fe8d1bead2894635a4aa6aa0b7981668c6"},
	{"3.4.1", "org.apache.kafka", "kafka-metadata", "878be8d812d96925098baf3e012745a64aebe1df7c1b6fec32c56c7d5ed3c664"},
	{"3.4.1", "org.apache.kafka", "kafka-raft", "37621aa3e3f0628385b0e0ef65570721187cbb3024fabe2a25c21d73e5cdcdab"},
	{"3.4.1", "org.apache.kafka", "kafka-storage", "bbee827a1f3e5471fdc9fc7e7ac9508d175b39994040158c8e03b6338be69707"},
	{"3.4.1", "org.apache.kafka", "kafka_2.13", "a889682a4b1344e8053f62ce83af013d7618fe5f4500283f9eb239c9704863c1"},
	{"3.3.2", "org.apache.kafka", "kafka-clients", "29b9b4f35ebeb810b151c4f7b9b6f24329a9be8e6c4764a6eebac3738bee7288"},
	{"3.3.2", "org.apache.kafka", "kafka-metadata", "3a9e00eab109d0f1aa54e6d74f2a24963f29849fe90f44d51911200946e3bf89"},
	{"3.3.2", "org.apache.kafka", "kafka-raft", "d04370571d238b814e7d904f6818c48473785efac1f27245743d34bc5e8acef4"},
	{"3.3.2", "org.apache.kafka", "kafka-storage", "7c8bb239f169fb52f2eb95df6a51d410148922211822beb000022bcf6dd7ac63"},
	{"3.3.2", "org.apache.kafka", "kafka_2.13", "54a78f19f2a07812a4b976b4ab18c7178efd3a1cc5e6e2a7844ed9734f672c94"},
	{"3.2.3", "org.apache.kafka", "kafka-clients", "8d924a5105962e0df89752dd6d1732639f009c9cdefb8148908a8607158ceb67"},
	{"3.2.3", "org.apache.kafka", "kafka-metadata", "239c3de3da92117dc832adec04423235147fe2c04d7ce346fd26966bd79dbcef"},
	{"3.2.3", "org.apache.kafka", "kafka-raft", "1d2f368425d129b63174fa0ec770e59611a89a6f9562353fc8b508ebe577712c"},
	{"3.2.3", "org.apache.kafka", "kafka-storage", "c7ca8b811b401a64c7441550076c649fa764a2ec47eae2dd6fdb7f74e9c23d3f"},
	{"3.2.3", "org.apache.kafka", "kafka_2.13", "37d675f543384a0ae6ba83782f1fa0ed13c180153c3d6499c55623a6eef87ab2"},
	{"3.1.2", "org.apache.kafka", "kafka-clients", "37d7a64cd2f15e1af07a39c707f76dd729474952e7b8e09c6ddaf52d87f72dc8"},
	{"3.1.2", "org.apache.kafka", "kafka-metadata", "389496b7d4e9708226fc973f7b9f26a4a66df662b27c085ab27de4ab7953a6af"},
	{"3.1.2", "org.apache.kafka", "kafka-raft", "56ebb102e46e5f35f1f9a23af254ba108cf06a9a804ad5d8d7d8c0df5d991cf4"},
	{"3.1.2", "org.apache.kafka", "kafka-storage", "dade895a04b0fcdac47c04d2b07ac93090f0a0d39e5aef9f8135734e0d01000c"},
	{"3.1.2", "org.apache.kafka", "kafka_2.13", "c82645ce37c51b2f60f98673b210de7c1ea77372ff000e01987cfbdfe65d250f"},
	{"3.0.2", "org.apache.kafka", "kafka-clients", "18661864d84e6c2c06e56c4a927a17bd95e29d99ad90ea71cbd3f3092bb864a7"},
	{"3.0.2", "org.apache.kafka", "kafka-metadata", "c4453926f89cbf1952aacc533334a66be01e6ef95213b3b712d69e8b796adc9d"},
	{"3.0.2", "org.apache.kafka", "kafka-raft", "7d722e6b81d018a02fa1cd21a7f57076f7e266698d5143e4b5b26e7af44acaf6"},
	{"3.0.2", "org.apache.kafka", "kafka-storage", "20e620cdb2635b2caac13a0351367b93770a254274060728cd07e3beb5557c99"},
	{"3.0.2", "org.apache.kafka", "kafka_2.13", "be9c8f883d50e3f15928270a7c57084e74b3ec16dabc4c5ad53d8a3b48f0777a"},
}

// featured are the releases that Kafka's own serializers judge in CI
// (interop/run.sh) and that the atlas (kwire site, kwire serve) shows by
// default: the newest, and the 3.9 release the oracle has judged since
// before the other releases were pinned.
var featured = []string{"4.4.0", "3.9.1"}

// Featured returns the pinned releases that the oracle judges and the atlas
// shows by default, newest first: "4.4.0" and "3.9.1". The other pinned
// releases are checked by the round trips of kwire's own tests.
func Featured() []string {
	return append([]string(nil), featured...)
}

// All returns a copy of the pinned artifacts, newest release first.
func All() []Pin {
	return append([]Pin(nil), table...)
}

// Releases returns the pinned release versions, newest first.
func Releases() []string {
	var rs []string
	for _, p := range table {
		if len(rs) == 0 || rs[len(rs)-1] != p.Release {
			rs = append(rs, p.Release)
		}
	}
	return rs
}

// Coord returns the Maven coordinate "group:artifact:version".
func (p Pin) Coord() string {
	return p.GroupID + ":" + p.ArtifactID + ":" + p.Release
}

// FileName returns the jar's file name, e.g. "kafka-clients-4.4.0.jar".
func (p Pin) FileName() string {
	return p.ArtifactID + "-" + p.Release + ".jar"
}

// URL returns the jar's download URL in [MavenRepository].
func (p Pin) URL() string {
	return MavenRepository + "/" + strings.ReplaceAll(p.GroupID, ".", "/") +
		"/" + p.ArtifactID + "/" + p.Release + "/" + p.FileName()
}

// BundleName returns the name of the bundle file that holds the given
// release, e.g. "kafka-4.4.0.bundle.gz".
func BundleName(release string) string {
	return "kafka-" + release + ".bundle.gz"
}
