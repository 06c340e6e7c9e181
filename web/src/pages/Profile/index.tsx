export default function Profile() {
  return <main className="page">Profile</main>;
}
